// Scorers for Evals: what "good" means for a dataset's items (one module per
// family, a registry here). A scorer config is JSON { kind, weight?,
// required?, ...settings }; parseScorer checks it and says what is wrong in a
// person's words; score() runs it on a finished run's ScoringInput.
import { z } from "zod";
import { combine, type ItemVerdict, type ScoredBy } from "./combine";
import { command } from "./command";
import { fileContains, fileExists } from "./files";
import { judge, judgePairwise } from "./judge";
import { callsAtMost, costAtMost, durationAtMost } from "./limits";
import { outcome } from "./outcome";
import { textContains, textMatches } from "./text";
import { toolSequence, toolsNotUsed, toolsUsed } from "./trajectory";
import { ScorerConfigError, ScoringUnavailableError, type ScoreResult, type ScorerKind, type ScoringInput } from "./types";

export type { ScoringInput, ScoreResult, ToolCallRecord, CommandResult, ScorerKind } from "./types";
export { ScorerConfigError, ScoringUnavailableError } from "./types";
export { combine, type ItemVerdict, type ScoredBy } from "./combine";
export { SEQUENCE_MODES, matchSequence, type SequenceMode } from "./sequence";
export { scoringInputOf, loadScoringInput, podExec, type FinishedRun, type ScoringEnvironment, type ScoringExtras } from "./input";

const KINDS: ScorerKind[] = [
  outcome,
  textContains,
  textMatches,
  fileExists,
  fileContains,
  command,
  costAtMost,
  callsAtMost,
  durationAtMost,
  toolsUsed,
  toolsNotUsed,
  toolSequence,
  judge,
  judgePairwise,
] as unknown as ScorerKind[];

export const SCORERS: ReadonlyMap<string, ScorerKind> = new Map(KINDS.map((k) => [k.kind, k]));
export const SCORER_KINDS = KINDS.map((k) => k.kind);

/** A scorer config as stored with a dataset. */
export type ScorerConfig = { kind: string; weight?: number; required?: boolean } & Record<string, unknown>;

/** A config that passed parseScorer: defaults filled in, ready to score. */
export interface ParsedScorer {
  readonly kind: string;
  readonly weight: number;
  readonly required: boolean;
  /** The kind's settings, parsed (defaults filled, matchers compiled). */
  readonly settings: Record<string, unknown>;
}

const parsedScorers = new WeakSet<ParsedScorer>();

const Base = {
  weight: z.number({ error: "weight is a number" }).positive("weight must be more than 0").max(1_000, "weight is at most 1,000").default(1),
  required: z.boolean({ error: "required is true or false" }).default(false),
};

const schemas = new Map(KINDS.map((k) => [k.kind, z.strictObject({ kind: z.literal(k.kind), ...Base, ...k.settings.shape })]));

function issueText(issue: z.core.$ZodIssue, kind: string): string {
  const where = issue.path.reduce<string>((s, p) => (typeof p === "number" ? `${s}[${p}]` : s ? `${s}.${String(p)}` : String(p)), "");
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.map((k) => JSON.stringify(k)).join(", ");
    return where
      ? `${where}: unknown key${issue.keys.length > 1 ? "s" : ""} ${keys}`
      : `${kind} has no setting${issue.keys.length > 1 ? "s" : ""} ${keys}`;
  }
  return where && !issue.message.startsWith(where) ? `${where}: ${issue.message}` : issue.message;
}

export function parseScorer(config: unknown): { ok: true; scorer: ParsedScorer } | { ok: false; problems: string[] } {
  if (!config || typeof config !== "object" || Array.isArray(config))
    return { ok: false, problems: ['a scorer is an object such as { "kind": "outcome" }'] };
  const kind = (config as { kind?: unknown }).kind;
  if (typeof kind !== "string" || !kind) return { ok: false, problems: [`a scorer needs a kind, one of ${SCORER_KINDS.join(", ")}`] };
  const def = SCORERS.get(kind);
  if (!def) return { ok: false, problems: [`there is no scorer kind ${JSON.stringify(kind)}; the kinds are ${SCORER_KINDS.join(", ")}`] };
  const parsed = schemas.get(kind)!.safeParse(config);
  if (!parsed.success) return { ok: false, problems: parsed.error.issues.map((i) => issueText(i, kind)) };
  const {
    kind: _kind,
    weight,
    required,
    ...settings
  } = parsed.data as { kind: string; weight: number; required: boolean } & Record<string, unknown>;
  const problems = def.check?.(settings) ?? [];
  if (problems.length) return { ok: false, problems };
  const scorer: ParsedScorer = Object.freeze({ kind, weight, required, settings });
  parsedScorers.add(scorer);
  return { ok: true, scorer };
}

function parsedOrThrow(config: ScorerConfig | ParsedScorer): ParsedScorer {
  if (parsedScorers.has(config as ParsedScorer)) return config as ParsedScorer;
  const r = parseScorer(config);
  if (!r.ok) throw new ScorerConfigError(r.problems);
  return r.scorer;
}

/**
 * Scores a finished run with one scorer. What this server cannot check (no
 * sandbox) is skipped with the reason; an unexpected failure fails the
 * scorer with what went wrong rather than stopping the evaluation.
 */
export async function score(input: ScoringInput, config: ScorerConfig | ParsedScorer): Promise<ScoreResult> {
  const scorer = parsedOrThrow(config);
  try {
    const r = await SCORERS.get(scorer.kind)!.score(input, scorer.settings);
    return "skipped" in r ? r : { ...r, score: Math.min(1, Math.max(0, r.score)) };
  } catch (err) {
    if (err instanceof ScoringUnavailableError) return { skipped: true, reason: err.message };
    return { score: 0, passed: false, detail: `${scorer.kind} could not score the run: ${(err as Error).message}` };
  }
}

/** A dataset's definition of good: its scorers and the pass threshold (0..1, default 1). */
export interface Scoring {
  scorers: ParsedScorer[];
  threshold: number;
}

export function parseScoring(raw: {
  scorers: unknown;
  threshold?: unknown;
}): { ok: true; scoring: Scoring } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  const threshold = raw.threshold ?? 1;
  if (typeof threshold !== "number" || !Number.isFinite(threshold) || threshold < 0 || threshold > 1)
    problems.push("the pass threshold is a number from 0 to 1");
  if (!Array.isArray(raw.scorers) || raw.scorers.length === 0)
    return { ok: false, problems: [...problems, "a dataset needs at least one scorer"] };
  const scorers: ParsedScorer[] = [];
  raw.scorers.forEach((config, i) => {
    const r = parseScorer(config);
    if (r.ok) scorers.push(r.scorer);
    else {
      const kind = (config as { kind?: unknown } | null)?.kind;
      const name = `scorer ${i + 1}${typeof kind === "string" ? ` (${kind})` : ""}`;
      problems.push(...r.problems.map((p) => `${name}: ${p}`));
    }
  });
  return problems.length ? { ok: false, problems } : { ok: true, scoring: { scorers, threshold: threshold as number } };
}

/** Every scorer of the item, one after the other (commands share the sandbox), and the combined verdict. */
export async function scoreItem(input: ScoringInput, scoring: Scoring): Promise<ItemVerdict & { scorers: ScoredBy[] }> {
  const scored: ScoredBy[] = [];
  for (const s of scoring.scorers) scored.push({ kind: s.kind, weight: s.weight, required: s.required, result: await score(input, s) });
  return { ...combine(scored, scoring.threshold), scorers: scored };
}
