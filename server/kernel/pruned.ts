// What retention dropped of an ended run (docs/operations.md#retention): the
// run keeps its summary; these parts may be gone, and what needs them says so.
import { DomainError } from "@/server/errors";

/** The parts of an ended run that retention drops; the run's summary (goal, outcome, cost, team) always stays. */
export const RUN_PARTS = ["events", "terminal", "checkpoints", "snapshots", "workspaces", "spanDetail", "spans"] as const;
export type RunPart = (typeof RUN_PARTS)[number];

const PART_WORDS: Record<RunPart, string> = {
  events: "event log",
  terminal: "terminal input",
  checkpoints: "checkpoints",
  snapshots: "workspace snapshots",
  workspaces: "workspace",
  spanDetail: "span detail",
  spans: "spans",
};

/** What going on with an ended run (continue, retry) needs: a run without them is not reopened. */
export const RESUME_NEEDS: readonly RunPart[] = ["events", "checkpoints", "workspaces"];

/** SQL (both dialects) true while none of RESUME_NEEDS was dropped: the store reopens a run only then, in the same UPDATE. */
export const RESUMABLE_SQL = RESUME_NEEDS.map((p) => `COALESCE("pruned", '') NOT LIKE '%"${p}"%'`).join(" AND ");

/** The same, as a Prisma filter. */
export const RESUMABLE_WHERE = {
  OR: [{ pruned: null }, { AND: RESUME_NEEDS.map((p) => ({ NOT: { pruned: { contains: `"${p}"` } } })) }],
};

export interface PrunedPart {
  part: RunPart;
  at: Date;
}

/** What a run's `pruned` column says was dropped, oldest first; anything unreadable counts as nothing. */
export function prunedParts(json: string | null): PrunedPart[] {
  if (!json) return [];
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return [];
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) return [];
  return Object.entries(value as Record<string, unknown>)
    .filter((e): e is [RunPart, string] => (RUN_PARTS as readonly string[]).includes(e[0]) && typeof e[1] === "string")
    .map(([part, at]) => ({ part, at: new Date(at) }))
    .sort((a, b) => a.at.getTime() - b.at.getTime() || RUN_PARTS.indexOf(a.part) - RUN_PARTS.indexOf(b.part));
}

/**
 * Refuses `doing` on a run whose parts it needs were dropped by retention,
 * naming what went and when (a 409, never a half-made fork).
 */
export function requireKept(run: { id: string; pruned: PrunedPart[] }, needs: readonly RunPart[], doing: string): void {
  const gone = run.pruned.filter((p) => needs.includes(p.part));
  if (!gone.length) return;
  const what = gone.map((p) => PART_WORDS[p.part]).join(" and ");
  const when = gone[gone.length - 1].at.toISOString().slice(0, 10);
  throw new DomainError(
    "CONFLICT",
    `${doing} needs run ${run.id}'s ${what}, which retention dropped on ${when}. Re-run it instead: a re-run starts from the goal`,
  );
}
