// HITLBroker (I6, docs/human-requests-and-policy.md#reference-human-requests):
// deciding requests, the TTL ladder's scheduler, and putting waiting runs back
// in the queue. Every transition is a compare-and-set on the request's state
// plus an audit row, in one transaction, so two deciders (or two schedulers)
// never both win.
import { z } from "zod";
import { patternViolation, schemaPatternProblems, withoutPatterns } from "@/server/patterns";
import type { Db } from "@/server/db";
import { roleAtLeast } from "@/server/identity";
import { event, newMessageId, type NewRunEvent, type RunStore } from "@/server/kernel";
import { recordAudit } from "@/server/audit";
import type { RequestChange } from "./bus";
import { DEFAULT_LADDER, type TtlLadder } from "./ladder";
import { getRequestView, listRequestViews, parsePayload, type RequestFilter, type RequestRow } from "./requests";
import { assertRequestTransition, decisionTarget, isOpen } from "./states";
import {
  DecisionInput,
  HumanRequestError,
  NEVER_HOLDS_RUN,
  OPEN_STATES,
  OUTLIVES_RUN,
  requesterRefusal,
  roleRefusal,
  deciderRole,
  type Channel,
  type Decider,
  type HumanRequestView,
  type RequestKind,
  type RequestState,
} from "./types";

export interface BrokerDeps {
  db: Db;
  /** The kernel's run store: timeline events and run state (a second process passes its own). */
  runs: Pick<RunStore, "appendEvents" | "transition" | "runIdsIn">;
  /** Starts a requeued run at once; absent in a second process (the server picks queued runs up at start). */
  enqueue?: (runId: string) => void;
  /** Live updates for the inbox. */
  onChange?: (change: RequestChange) => void;
  /** Checks edited arguments against the tool's schema; returns the problem or null. */
  validateArgs?: (tool: string, args: unknown) => string | null;
  ladder?: TtlLadder;
  now?: () => Date;
  log?: { error(msg: string, err?: unknown): void };
}

interface Who {
  id: string;
  name: string;
  channel: Channel;
}

const SYSTEM: Who = { id: "system", name: "Rein", channel: "scheduler" };

/** How a decision's channel is named to a person. */
const CHANNEL_NAMES: Record<string, string> = {
  inbox: "the Inbox",
  link: "a signed link",
  api: "the API",
  cli: "the CLI",
  mcp: "MCP",
  slack: "Slack",
  email: "e-mail",
};

/** Requests a run still waits for: open ones, and a veto between EXPIRED and APPROVED. */
const UNSETTLED = { OR: [{ state: { in: [...OPEN_STATES] } }, { kind: "veto", state: "EXPIRED" }] };

/** Unsettled requests the run waits for (a memory's confirmation never holds it). */
const HOLDING = { ...UNSETTLED, slot: { notIn: [...NEVER_HOLDS_RUN] } };

export class HitlBroker {
  readonly ladder: TtlLadder;
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;

  constructor(private readonly deps: BrokerDeps) {
    this.ladder = deps.ladder ?? DEFAULT_LADDER;
  }

  private now() {
    return this.deps.now?.() ?? new Date();
  }

  get(id: string): Promise<HumanRequestView | null> {
    return getRequestView(this.deps.db, id);
  }

  list(filter: RequestFilter) {
    return listRequestViews(this.deps.db, filter);
  }

  /** Requests of runs a non-admin may see: their teams' and their own. */
  listVisible(filter: RequestFilter, userId: string, teamIds: string[]) {
    return listRequestViews(this.deps.db, { ...filter, visibleTo: { userId, teamIds } });
  }

  /**
   * Open requests a person with this role could decide (the inbox badge),
   * among those they may see: with `visibleTo`, only their teams' runs and the
   * runs they launched (admins pass none and see all).
   */
  async openCount(decider: Decider["role"] | Decider, visibleTo?: { userId: string; teamIds: string[] }): Promise<number> {
    const who: Decider = typeof decider === "string" ? { id: "", name: "", role: decider } : decider;
    const where = {
      state: { in: [...OPEN_STATES] },
      ...(visibleTo ? { OR: [{ requestedById: visibleTo.userId }, { teamId: { in: visibleTo.teamIds } }] } : {}),
    };
    const rows = await this.deps.db.humanRequest.groupBy({ by: ["requiredRole", "teamId"], where, _count: { _all: true } });
    const hasRole = (r: { teamId: string | null; requiredRole: string }) => {
      const role = deciderRole(who, r.teamId);
      return !!role && roleAtLeast(role, r.requiredRole as Decider["role"]);
    };
    const byRole = rows.filter(hasRole).reduce((n, r) => n + r._count._all, 0);
    if (!who.id) return byRole;
    // Less the person's own requests that someone else must decide (a change they launched): few, so read.
    const own = await this.deps.db.humanRequest.findMany({
      where: { ...where, requestedById: who.id },
      select: { teamId: true, requiredRole: true, payload: true },
    });
    return (
      byRole -
      own.filter((r) => hasRole(r) && requesterRefusal(who, { requestedById: who.id, notByRequester: parsePayload(r).notByRequester }))
        .length
    );
  }

  /** Everything decide() checks, without deciding: a link is used up only for an answer that would be taken. */
  async checkDecision(requestId: string, decider: Decider, raw: DecisionInput): Promise<void> {
    await this.admissible(requestId, decider, DecisionInput.parse(raw));
  }

  private async admissible(requestId: string, decider: Decider, input: DecisionInput) {
    const row = await this.deps.db.humanRequest.findUnique({ where: { id: requestId } });
    if (!row) throw new HumanRequestError("NOT_FOUND", `There is no human request ${requestId}`);
    const refusal = roleRefusal(decider, row.teamId, row.requiredRole as Decider["role"], "Deciding this request");
    if (refusal) throw new HumanRequestError("FORBIDDEN", refusal);
    if (!isOpen(row.state as RequestState)) throw new HumanRequestError("CLOSED", await this.closedMessage(row));
    const own = requesterRefusal(decider, { requestedById: row.requestedById, notByRequester: parsePayload(row).notByRequester });
    if (own) throw new HumanRequestError("FORBIDDEN", own);
    const target = decisionTarget(row.kind as RequestKind, input.decision);
    return { row, target, stored: this.checkAnswer(row, input) };
  }

  /** A person's answer, from the inbox, a signed link, the API or the CLI. */
  async decide(requestId: string, decider: Decider, raw: DecisionInput, channel: Channel): Promise<HumanRequestView> {
    const { row, target, stored } = await this.admissible(requestId, decider, DecisionInput.parse(raw));
    const updated = await this.move(
      row,
      target,
      { id: decider.id, name: decider.name, channel },
      { decision: JSON.stringify(stored), decidedById: decider.id, decidedAt: this.now() },
      {
        decision: stored.decision,
        ...(stored.comment ? { comment: stored.comment } : {}),
        ...(stored.optionId ? { optionId: stored.optionId } : {}),
        ...(stored.editedArguments ? { edited: true } : {}),
      },
    );
    if (!updated) {
      const fresh = await this.deps.db.humanRequest.findUnique({ where: { id: requestId } });
      throw new HumanRequestError("CLOSED", fresh ? await this.closedMessage(fresh) : "This request no longer exists");
    }
    return (await this.get(requestId))!;
  }

  /** Validates the answer against the request; returns what is stored. */
  private checkAnswer(row: RequestRow, input: DecisionInput): DecisionInput {
    const payload = parsePayload(row);
    const comment = input.comment?.trim() || undefined;
    if (input.editedArguments) {
      const editable = (row.kind === "approve" && row.slot === "policy") || payload.allowEditedArguments;
      if (!editable) throw new HumanRequestError("INVALID_DECISION", "Only an approval of a tool call takes edited arguments");
      if (input.decision === "reject") throw new HumanRequestError("INVALID_DECISION", "A rejection takes no edited arguments");
      const problem = payload.tool ? this.deps.validateArgs?.(payload.tool, input.editedArguments) : null;
      if (problem) throw new HumanRequestError("INVALID_DECISION", `The edited arguments are not valid: ${problem}`);
    }
    if (input.decision === "choose") {
      const options = payload.options ?? [];
      if (!input.optionId) throw new HumanRequestError("INVALID_DECISION", "Choose one of the options (optionId is missing)");
      if (!options.some((o) => o.id === input.optionId)) {
        throw new HumanRequestError(
          "INVALID_DECISION",
          `"${input.optionId}" is not one of the options (${options.map((o) => o.id).join(", ")})`,
        );
      }
      return { decision: "choose", optionId: input.optionId, comment, editedArguments: input.editedArguments };
    }
    if (input.decision === "provide") {
      if (input.value === undefined) throw new HumanRequestError("INVALID_DECISION", "Provide a value (value is missing)");
      const problem = validateAgainstSchema(payload.schema, input.value);
      if (problem) throw new HumanRequestError("INVALID_DECISION", `The value does not match what was asked: ${problem}`);
      return { decision: "provide", value: input.value, comment };
    }
    return { decision: input.decision, comment, editedArguments: input.editedArguments };
  }

  private async closedMessage(row: RequestRow): Promise<string> {
    const by = row.decidedById
      ? (await this.deps.db.user.findUnique({ where: { id: row.decidedById }, select: { name: true } }))?.name
      : null;
    const when = row.decidedAt ? ` at ${row.decidedAt.toISOString()}` : "";
    // Whichever channel answered first won; a late answer from another says which (docs/channels.md#first-answer-wins).
    const via =
      by && row.channel && row.channel !== "scheduler" && row.channel !== "kernel"
        ? ` via ${CHANNEL_NAMES[row.channel] ?? row.channel}`
        : "";
    return `This request is already closed: ${row.state}${by ? ` by ${by}` : ""}${via}${when}`;
  }

  /**
   * One compare-and-set transition with its audit row; then the run's timeline
   * event, and the run back in the queue when the request closed.
   */
  private async move(
    row: RequestRow,
    to: RequestState,
    who: Who,
    patch: { decision?: string; decidedById?: string; decidedAt?: Date; level?: number; expiresAt?: Date; nextActionAt?: Date | null },
    detail: Record<string, unknown> = {},
  ): Promise<RequestRow | null> {
    const kind = row.kind as RequestKind;
    const from = row.state as RequestState;
    assertRequestTransition(kind, from, to);
    const now = this.now();
    // A veto's EXPIRED is a step on the way to APPROVED: the run does not go on
    // yet, and the request stays due so a restarted scheduler finishes the step.
    const closes = !isOpen(to) && !(kind === "veto" && to === "EXPIRED");
    const updated = await this.deps.db.$transaction(async (tx) => {
      const res = await tx.humanRequest.updateMany({
        where: { id: row.id, state: from },
        data: { state: to, ...patch, ...(closes ? { nextActionAt: null, channel: who.channel } : {}) },
      });
      if (res.count !== 1) return null;
      await recordAudit(tx, {
        kind: "request.transition",
        actorId: who.id,
        actorName: who.name,
        onBehalfOf: row.requestedById,
        channel: who.channel,
        runId: row.runId,
        requestId: row.id,
        subject: parsePayload(row).tool ?? row.title,
        fromState: from,
        toState: to,
        detail: { kind, ...detail },
        at: now,
      });
      return tx.humanRequest.findUnique({ where: { id: row.id } });
    });
    if (!updated) return null;
    const events: NewRunEvent[] =
      to === "ESCALATED"
        ? [
            event(
              "human.escalated",
              { requestId: row.id, level: updated.level, expiresAt: updated.expiresAt.toISOString() },
              { actor: who.id, key: `escalated:${row.id}` },
            ),
          ]
        : closes
          ? [
              event(
                "human.decided",
                {
                  requestId: row.id,
                  kind,
                  state: to,
                  by: who.id,
                  byName: who.name,
                  channel: who.channel,
                  ...(detail as { decision?: string; comment?: string; optionId?: string; edited?: boolean }),
                },
                { actor: who.id, key: `decided:${row.id}` },
              ),
            ]
          : [];
    if (events.length) await this.deps.runs.appendEvents(row.runId, events);
    if (closes) await this.requeue(row.runId);
    this.deps.onChange?.({ requestId: row.id, runId: row.runId, state: to, teamId: row.teamId });
    return updated;
  }

  /** The run waited for this request: it goes back in the queue, where the call picks up the answer. */
  private async requeue(runId: string): Promise<void> {
    const open = await this.deps.db.humanRequest.count({ where: { runId, ...HOLDING } });
    if (open > 0) return;
    const moved = await this.deps.runs.transition(runId, ["waiting_human"], "queued", { reason: "A person answered" });
    if (moved) this.deps.enqueue?.(runId);
  }

  /** The kernel put the run in waiting_human: if the answer came in meanwhile, go on. */
  async afterWaiting(runId: string): Promise<void> {
    await this.requeue(runId);
  }

  /** A run ended (canceled, failed): its open requests are canceled, but not those about what it produced (OUTLIVES_RUN). */
  async cancelForRun(runId: string, reason: string): Promise<number> {
    const rows = await this.deps.db.humanRequest.findMany({
      where: { runId, state: { in: [...OPEN_STATES] }, slot: { notIn: [...OUTLIVES_RUN] } },
    });
    let n = 0;
    for (const row of rows) {
      if (await this.move(row, "CANCELED", { ...SYSTEM, channel: "kernel" }, {}, { reason })) n++;
    }
    return n;
  }

  /** What a request asked about is gone (a change request closed another way): it is canceled, if still open. */
  async cancel(requestId: string, reason: string): Promise<boolean> {
    const row = await this.deps.db.humanRequest.findUnique({ where: { id: requestId } });
    if (!row || !isOpen(row.state as RequestState)) return false;
    return !!(await this.move(row, "CANCELED", { ...SYSTEM, channel: "kernel" }, {}, { reason }));
  }

  /**
   * Start-up repair: runs left in waiting_human with nothing open (answered
   * while no server ran, or by a process that could not queue them) go on.
   */
  async reconcile(): Promise<number> {
    const waiting = await this.deps.runs.runIdsIn(["waiting_human"]);
    let n = 0;
    for (const runId of waiting) {
      const open = await this.deps.db.humanRequest.count({ where: { runId, ...HOLDING } });
      if (
        open === 0 &&
        (await this.deps.runs.transition(runId, ["waiting_human"], "queued", { reason: "Its human request was answered" }))
      ) {
        this.deps.enqueue?.(runId);
        n++;
      }
    }
    return n;
  }

  /** One pass of the TTL ladder over every request that is due. */
  async runDue(): Promise<number> {
    const now = this.now();
    const due = await this.deps.db.humanRequest.findMany({
      where: { ...UNSETTLED, nextActionAt: { lte: now } },
      orderBy: { nextActionAt: "asc" },
      take: 500,
    });
    let n = 0;
    for (const row of due) {
      try {
        if (await this.step(row, now)) n++;
      } catch (err) {
        this.deps.log?.error(`human request ${row.id}: the scheduler could not apply its deadline`, err);
      }
    }
    return n;
  }

  private async step(row: RequestRow, now: Date): Promise<boolean> {
    const kind = row.kind as RequestKind;
    if (kind === "veto") {
      // Nobody vetoed in time: it goes ahead (EXPIRED already if a scheduler died half-way).
      const expired =
        row.state === "EXPIRED" ? row : await this.move(row, "EXPIRED", SYSTEM, {}, { reason: "Nobody vetoed before the deadline" });
      if (!expired) return false;
      return !!(await this.move(
        expired,
        "APPROVED",
        SYSTEM,
        { decidedAt: now, decidedById: "system" },
        { decision: "expired", comment: "Nobody vetoed before the deadline" },
      ));
    }
    if (row.hardExpiresAt <= now) {
      return !!(await this.move(
        row,
        "EXPIRED",
        SYSTEM,
        { decidedAt: now },
        { decision: "expired", comment: "Nobody answered before the hard deadline" },
      ));
    }
    if (row.state === "PENDING") {
      const expiresAt = new Date(Math.min(now.getTime() + this.ladder.level2Sec * 1000, row.hardExpiresAt.getTime()));
      return !!(await this.move(
        row,
        "ESCALATED",
        SYSTEM,
        { level: 2, expiresAt, nextActionAt: expiresAt },
        { reason: "Level 1 did not answer in time" },
      ));
    }
    // Level 2 ran out too: tell the on-call admins once, then wait for the hard cap.
    // The channels hear of it through the outbox, written with the step (server/kernel/outbox.ts).
    const stepped = await this.deps.db.$transaction(async (tx) => {
      const res = await tx.humanRequest.updateMany({
        where: { id: row.id, state: "ESCALATED", nextActionAt: row.nextActionAt },
        data: { nextActionAt: row.hardExpiresAt, level: 3 },
      });
      if (res.count !== 1) return false;
      await tx.outboxMessage.create({
        data: {
          id: newMessageId(),
          type: "human_request.escalated",
          runId: row.runId,
          data: JSON.stringify({ runId: row.runId, requestId: row.id, level: 3, expiresAt: row.hardExpiresAt.toISOString(), onCall: true }),
          createdAt: now,
        },
      });
      return true;
    });
    if (!stepped) return false;
    await recordAudit(this.deps.db, {
      kind: "request.notify_admin",
      actorId: SYSTEM.id,
      actorName: SYSTEM.name,
      onBehalfOf: row.requestedById,
      channel: "scheduler",
      runId: row.runId,
      requestId: row.id,
      subject: parsePayload(row).tool ?? row.title,
      detail: { reason: "Level 2 did not answer in time; on-call admins are asked", hardExpiresAt: row.hardExpiresAt.toISOString() },
      at: now,
    });
    this.deps.onChange?.({ requestId: row.id, runId: row.runId, state: "ESCALATED", teamId: row.teamId });
    return true;
  }

  /** Runs the ladder every `intervalMs` (and once now); survives restarts because all of it is in the database. */
  start(intervalMs = 1000): void {
    if (this.timer) return;
    const tick = () => {
      if (this.ticking) return;
      this.ticking = this.runDue()
        .then(() => undefined)
        .catch((err) => this.deps.log?.error("the human-request scheduler failed", err))
        .finally(() => (this.ticking = null));
    };
    tick();
    this.timer = setInterval(tick, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.ticking;
  }
}

/** A provide answer checked against the request's JSON schema. */
function validateAgainstSchema(schema: Record<string, unknown> | undefined, value: unknown): string | null {
  if (!schema) return null;
  // The schema is the agent's: its patterns run in linear time here, never as JavaScript regexes.
  const unusable = schemaPatternProblems(schema);
  if (unusable.length) return `the request's schema cannot be used (${unusable.join("; ")})`;
  let parser: z.ZodType;
  try {
    parser = z.fromJSONSchema(withoutPatterns(schema) as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (err) {
    return `the request's schema cannot be used (${(err as Error).message})`;
  }
  const result = parser.safeParse(value);
  if (!result.success) return result.error.issues.map((i) => `${i.path.join(".") || "value"}: ${i.message}`).join("; ");
  return patternViolation(schema, value);
}
