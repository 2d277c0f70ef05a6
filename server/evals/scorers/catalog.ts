// The scorer kinds as the Evals pages offer them: each kind with its own
// settings, named, and whether a config must give them (no default).
import { SCORERS, SCORER_KINDS } from "./index";

export interface ScorerKindInfo {
  kind: string;
  settings: Array<{ name: string; required: boolean }>;
}

export function scorerCatalog(): ScorerKindInfo[] {
  return SCORER_KINDS.map((kind) => ({
    kind,
    settings: Object.entries(SCORERS.get(kind)!.settings.shape).map(([name, schema]) => ({
      name,
      required: !(schema as { safeParse(v: unknown): { success: boolean } }).safeParse(undefined).success,
    })),
  }));
}
