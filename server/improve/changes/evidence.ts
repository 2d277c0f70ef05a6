// What a reviewer weighs at a glance (docs/changes.md#before-and-after): for
// a change that claims a fix, the tests on the base against the tests on the
// head; for the list of changes, each one's review decision.
import type { Db } from "@/server/db";

interface CheckRow {
  id: string;
  kind: string;
  state: string;
  exitCode: number | null;
}

export type FixVerdict = "shown" | "not_shown" | "pending" | "unknown";

export interface FixEvidence {
  /** The tests on the base commit (before the change). */
  before: { checkId: string; state: string; exitCode: number | null };
  /** The tests on the change's head (after it); null until they ran. */
  after: { checkId: string; state: string; exitCode: number | null } | null;
  /**
   * shown: they failed before and pass after; not_shown: they passed before too, so they do not show
   * the failure fixed; pending: a run is not over; unknown: the tests could not run on one side.
   */
  verdict: FixVerdict;
  words: string;
}

/** The newest before and after checks (the list is newest first); null for a change that claims no fix. */
export function fixEvidence(checks: CheckRow[]): FixEvidence | null {
  const before = checks.find((c) => c.kind === "before");
  if (!before) return null;
  const after = checks.find((c) => c.kind === "tests") ?? null;
  const pick = (c: CheckRow) => ({ checkId: c.id, state: c.state, exitCode: c.exitCode });
  const verdict: FixVerdict =
    before.state === "running" || !after || after.state === "running"
      ? "pending"
      : before.state === "failed" && after.state === "passed"
        ? "shown"
        : before.state === "passed"
          ? "not_shown"
          : "unknown";
  const words = {
    shown: "The tests fail without this change and pass with it: the fix is shown.",
    not_shown: "The tests pass without this change too: they do not show the failure it claims to fix.",
    pending: "The tests on the base and on the change are not both done yet.",
    unknown: "The tests could not run on both sides, so they neither show nor disprove the fix.",
  }[verdict];
  return { before: pick(before), after: after ? pick(after) : null, verdict, words };
}

export interface ReviewDecision {
  state: string;
  byName: string | null;
  at: Date | null;
}

/** Each approve request's state and decider, for the list of changes. */
export async function reviewsOf(db: Db, requestIds: string[]): Promise<Map<string, ReviewDecision>> {
  if (!requestIds.length) return new Map();
  const rows = await db.humanRequest.findMany({
    where: { id: { in: requestIds } },
    select: { id: true, state: true, decidedById: true, decidedAt: true },
  });
  const ids = [...new Set(rows.map((r) => r.decidedById).filter((x): x is string => !!x && x !== "system"))];
  const names = new Map(
    (await db.user.findMany({ where: { id: { in: ids } }, select: { id: true, name: true } })).map((u) => [u.id, u.name]),
  );
  return new Map(
    rows.map((r) => [
      r.id,
      {
        state: r.state,
        byName: r.decidedById === "system" ? "Rein" : r.decidedById ? (names.get(r.decidedById) ?? null) : null,
        at: r.decidedAt,
      },
    ]),
  );
}
