// A change request's conversation, as on a pull request's page
// (docs/changes.md#conversation): who opened it, what the agent proposed,
// every check run with its result, each review decision with its comment,
// people's comments, merges and reverts with their reasons — in the order
// they happened. Built from what is already written (the audit log, the
// check runs, the approve requests), so nothing is recorded twice.
import type { Db } from "@/server/db";

export type ActivityKind = "opened" | "proposed" | "check" | "decision" | "comment" | "state" | "refused";

export interface ActivityEntry {
  /** Stable across reads: the source row's kind and id. */
  id: string;
  at: Date;
  kind: ActivityKind;
  /** A person's name, the agent's, or "Rein". */
  who: string;
  /** What happened, in words ("approved", "ran the tests: failed (exit 1)"). */
  text: string;
  /** A person's own words: a comment, a decision's comment, a revert's reason. */
  comment?: string;
  /** A check run's id (its log), or the approve request's. */
  ref?: string;
  /** The state a move led to. */
  to?: string;
}

const STATE_WORDS: Record<string, string> = {
  checks_running: "started the checks",
  checks_failed: "marked the checks failed",
  awaiting_review: "asked for a review",
  merged: "merged it",
  rejected: "closed it",
  reverted: "reverted it",
};

const CHECK_WORDS: Record<string, string> = {
  running: "running",
  passed: "passed",
  failed: "failed",
  timed_out: "ran out of time",
  error: "could not run",
};

/** What the change's audit rows hold, read back. */
function detailOf(raw: string): Record<string, unknown> {
  try {
    const v = JSON.parse(raw) as unknown;
    return v && typeof v === "object" ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A reason Rein wrote as "Rejected by Ada: too risky" holds the person's words after the colon. */
function personsWords(reason: string | undefined, who: string): string | undefined {
  if (!reason) return undefined;
  for (const prefix of [`Rejected by ${who}: `, `Reverted by ${who}: `, "Rejected: "])
    if (reason.startsWith(prefix)) return reason.slice(prefix.length).trim() || undefined;
  return undefined;
}

const text = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim() : undefined);

/** Most recent entries kept: a change reviewed for weeks stays readable, and the page says how many were left out. */
export const MAX_ACTIVITY = 300;

export async function changeActivity(
  db: Db,
  row: { id: string; authorRunId: string | null; createdAt: Date; createdById: string | null },
): Promise<{ entries: ActivityEntry[]; leftOut: number }> {
  const [audit, checks, requests] = await Promise.all([
    row.authorRunId
      ? db.auditEntry.findMany({
          where: { runId: row.authorRunId, kind: { startsWith: "change." } },
          orderBy: { id: "asc" },
          take: 2_000,
          select: { id: true, at: true, kind: true, actorName: true, toState: true, detail: true },
        })
      : Promise.resolve([]),
    db.changeCheck.findMany({
      where: { changeRequestId: row.id },
      orderBy: { startedAt: "asc" },
      take: 500,
      select: { id: true, kind: true, state: true, startedAt: true, endedAt: true, exitCode: true },
    }),
    row.authorRunId
      ? db.humanRequest.findMany({
          where: { runId: row.authorRunId, slot: "change", nodeId: { startsWith: `change:${row.id}:` }, decidedAt: { not: null } },
          orderBy: { decidedAt: "asc" },
          take: 200,
          select: { id: true, state: true, decidedAt: true, decidedById: true, decision: true },
        })
      : Promise.resolve([]),
  ]);
  const deciders = new Set(requests.map((r) => r.decidedById).filter((x): x is string => !!x && x !== "system"));
  if (row.createdById) deciders.add(row.createdById);
  const names = new Map(
    (await db.user.findMany({ where: { id: { in: [...deciders] } }, select: { id: true, name: true } })).map((u) => [u.id, u.name]),
  );

  const entries: ActivityEntry[] = [];
  let opened = false;
  for (const a of audit) {
    const d = detailOf(a.detail);
    if (d.changeId !== row.id) continue;
    const who = a.actorName ?? "Rein";
    const base = { id: `audit-${a.id}`, at: a.at, who };
    if (a.kind === "change.started") {
      opened = true;
      entries.push({ ...base, kind: "opened", text: `started the change${text(d.agent) ? ` with the agent ${String(d.agent)}` : ""}` });
    } else if (a.kind === "change.comment") {
      entries.push({ ...base, kind: "comment", text: "commented", comment: text(d.comment) });
    } else if (a.kind === "change.refused" || a.kind === "change.reject_refused") {
      const paths = Array.isArray(d.paths) ? d.paths.filter((p): p is string => typeof p === "string") : [];
      entries.push({
        ...base,
        kind: "refused",
        text: paths.length ? `refused a proposal touching protected paths: ${paths.join(", ")}` : "refused a decision",
        comment: text(d.reason),
      });
    } else if (a.toState === "checks_running" && a.actorName && d.from !== "checks_failed" && d.from !== "awaiting_review") {
      entries.push({ ...base, kind: "proposed", text: "proposed a commit", to: a.toState });
    } else if (a.toState && STATE_WORDS[a.toState]) {
      // Approvals are told by the decision itself (with its comment); the merge that follows is Rein's.
      entries.push({
        ...base,
        kind: "state",
        text: STATE_WORDS[a.toState],
        to: a.toState,
        comment: a.toState === "rejected" || a.toState === "reverted" ? personsWords(text(d.reason), who) : undefined,
      });
    }
  }
  if (!opened)
    entries.push({
      id: `opened-${row.id}`,
      at: row.createdAt,
      kind: "opened",
      who: (row.createdById && names.get(row.createdById)) || "Rein",
      text: "started the change",
    });
  for (const c of checks) {
    const what = c.kind === "before" ? "ran the tests on the base (before the change)" : "ran the tests";
    const result = CHECK_WORDS[c.state] ?? c.state;
    entries.push({
      id: `check-${c.id}`,
      at: c.endedAt ?? c.startedAt,
      kind: "check",
      who: "Rein",
      text: `${what}: ${result}${c.exitCode !== null && c.state === "failed" ? ` (exit ${c.exitCode})` : ""}`,
      ref: c.id,
      to: c.state,
    });
  }
  for (const r of requests) {
    const word = r.state === "APPROVED" ? "approved" : r.state === "REJECTED" ? "rejected" : null;
    if (!word) continue;
    entries.push({
      id: `decision-${r.id}`,
      at: r.decidedAt!,
      kind: "decision",
      who: r.decidedById === "system" ? "Rein" : ((r.decidedById && names.get(r.decidedById)) ?? "someone"),
      text: word,
      comment: text(detailOf(r.decision ?? "{}").comment),
      ref: r.id,
      to: r.state,
    });
  }
  // A rejection in the Inbox closes the change: its closing entry carries the comment, once.
  const closed = entries.some((e) => e.kind === "state" && e.to === "rejected");
  if (closed) entries.splice(0, entries.length, ...entries.filter((e) => !(e.kind === "decision" && e.to === "REJECTED")));
  // In the order they happened; at one instant, a decision before the merge it led to.
  const order: Record<ActivityKind, number> = { opened: 0, proposed: 1, check: 2, decision: 3, comment: 4, refused: 5, state: 6 };
  entries.sort((a, b) => a.at.getTime() - b.at.getTime() || order[a.kind] - order[b.kind]);
  const leftOut = Math.max(0, entries.length - MAX_ACTIVITY);
  return { entries: leftOut ? entries.slice(leftOut) : entries, leftOut };
}
