// The gate before every tool call
// (docs/human-requests-and-policy.md#how-a-call-is-decided): PolicyGate -> human
// if asked. It creates the human request the first time a call needs one and,
// when the run comes back after the answer, turns the answer into what the call
// does.
import type { Db } from "@/server/db";
import { isRole, type Role } from "@/server/identity";
import { ruleNumber } from "@/server/policy";
import type { CallGate, GateCall, GateNote, GateVerdict, HumanQuestion, ToolOutcome, ToolReviewer } from "@/server/tools";
import { auditWriter, type AuditWriter } from "@/server/audit";
import { DEFAULT_LADDER, type TtlLadder } from "./ladder";
import { createRequest, parseDecision, type NewRequest, type RequestRow } from "./requests";
import type { RequestKind, RequestSlot } from "./types";

/** The PolicyGate (server/policy) as the gate uses it. */
export interface PolicyDecider {
  decide(input: {
    actor: { id: string; email?: string };
    team: string | null;
    teamId?: string | null;
    tool: string;
    args: unknown;
    tier: string;
  }): Promise<{
    effect: "allow" | "deny" | "ask";
    ask?: { kind: RequestKind; role: Role; ttlSec?: number };
    level: string;
    rule: number | null;
    ruleName?: string;
    reason: string;
    policyVersion: number;
  }>;
}

export interface HumanGateDeps {
  db: Db;
  policy: PolicyDecider;
  ladder?: TtlLadder;
  now?: () => Date;
  /** Where decisions are recorded; default: through Prisma (server.ts passes the direct SQLite writer). */
  audit?: AuditWriter;
  /** A request was created (inbox live updates). */
  onCreated?: (change: { requestId: string; runId: string; state: string; teamId: string | null }) => void;
}

const REPLAY_OPTIONS = [
  { id: "retry", label: "Run it again", detail: "Run the call again, with the same or corrected arguments." },
  { id: "skip", label: "Skip it", detail: "Do not run it; the agent is told it is unknown whether it happened." },
  { id: "cancel", label: "Cancel the run", detail: "Stop the run here." },
];

const LOOP_OPTIONS = [
  { id: "continue", label: "Let it continue", detail: "Run the call; the guard asks again if the repetition goes on." },
  { id: "skip", label: "Skip this call", detail: "Do not run it; the agent is told it keeps repeating itself." },
  { id: "stop", label: "Stop the run", detail: "Cancel the run here." },
];

/**
 * How long a person's email, read for actor-level rules, is reused: as long
 * as the policy itself (server/policy PolicyGate rechecks every 5 s), so a
 * change reaches the rules as soon as a policy edit would, and a run's every
 * tool call does not cost a query.
 */
const EMAIL_FRESH_MS = 5_000;

export class HumanGate implements CallGate {
  private readonly emails = new Map<string, { email: string | undefined; at: number }>();
  private readonly ladder: TtlLadder;
  private readonly audit: AuditWriter;

  constructor(private readonly deps: HumanGateDeps) {
    this.ladder = deps.ladder ?? DEFAULT_LADDER;
    this.audit = deps.audit ?? auditWriter(deps.db);
  }

  private now() {
    return this.deps.now?.() ?? new Date();
  }

  async check(call: GateCall): Promise<GateVerdict> {
    const { tool, args, address, ctx } = call;
    // A person's email is read again after a few seconds (it can change); team rules match the run's team by id,
    // so a rename never changes which rules apply (docs/security.md#teams-are-referenced-by-id).
    const asked = {
      actor: { id: ctx.actorId, email: await this.emailOf(ctx.actorId) },
      team: null,
      teamId: ctx.teamId ?? null,
      args,
      tier: ctx.tier ?? "T1",
    };
    let verdict = await this.deps.policy.decide({ ...asked, tool: tool.name });
    // A rule naming the tool wins; else the rules for what it is (every runtime tool is "runtime_tool").
    if (verdict.rule === null && tool.policyAlias) verdict = await this.deps.policy.decide({ ...asked, tool: tool.policyAlias });
    const note: GateNote = {
      policy: { effect: verdict.effect, level: verdict.level, rule: verdict.rule, reason: verdict.reason, version: verdict.policyVersion },
    };
    await this.audit.record(
      {
        kind: "policy.decision",
        actorId: `agent:${ctx.agent.name}`,
        actorName: ctx.agent.name,
        onBehalfOf: ctx.actorId,
        channel: "kernel",
        runId: address.runId,
        teamId: ctx.teamId ?? null,
        subject: tool.name,
        toState: verdict.effect === "ask" ? `ask(${verdict.ask?.kind ?? "approve"})` : verdict.effect,
        detail: {
          level: verdict.level,
          rule: ruleNumber(verdict),
          ruleName: verdict.ruleName,
          reason: verdict.reason,
          version: verdict.policyVersion,
          nodeId: address.nodeId,
        },
      },
      { routine: verdict.effect === "allow" },
    );
    if (verdict.effect === "deny") {
      return { kind: "result", outcome: failed("POLICY_DENIED", `Policy does not allow ${tool.name} here: ${verdict.reason}`), note };
    }
    if (tool.asksHuman) return this.answerQuestion(call, tool.asksHuman(args), note);
    if (verdict.effect === "allow") return ctx.loop ? this.loopSuspected(call, ctx.loop, note) : this.proceed(call, args, note);

    const kind: RequestKind = verdict.ask?.kind === "veto" ? "veto" : "approve";
    const role = verdict.ask?.role && isRole(verdict.ask.role) ? verdict.ask.role : "approver";
    const row = await this.request(call, "policy", {
      kind,
      requiredRole: role,
      title: titleFor(kind, tool.name, args),
      detail: verdict.reason,
      // The tier it was asked in: a rule suggested from the answers applies there only (server/policy/suggestions.ts).
      payload: { tool: tool.name, args, rule: verdict.ruleName ?? verdict.reason, tier: asked.tier },
      ttlSec: verdict.ask?.ttlSec,
    });
    note.requestId = row.row.id;
    if (!row.closed) return { kind: "wait", request: row.waiting, created: row.created, note };
    const decided = parseDecision(row.row);
    note.decidedBy = row.row.decidedById ?? undefined;
    switch (row.row.state) {
      case "APPROVED":
        return this.proceed(call, decided?.editedArguments ?? args, note);
      case "REJECTED": {
        const by = await this.nameOf(row.row.decidedById);
        const what = kind === "veto" ? "vetoed" : "rejected";
        const reviewer = { by, verb: what, ...(decided?.comment ? { comment: decided.comment } : {}) } as const;
        return {
          kind: "result",
          outcome: failed("REJECTED_BY_HUMAN", `${by} ${what} this call${decided?.comment ? `: ${decided.comment}` : ""}`, reviewer),
          note,
        };
      }
      case "EXPIRED":
        return {
          kind: "result",
          outcome: failed("HUMAN_REQUEST_EXPIRED", "Nobody approved this call before the request expired; it did not run"),
          note,
        };
      default:
        return {
          kind: "result",
          outcome: failed("HUMAN_REQUEST_CANCELED", "The approval request was canceled; the call did not run"),
          note,
        };
    }
  }

  /**
   * The call may go ahead as far as the policy and the loop guard go; a tool
   * that needs a person's consent depending on the run (upgrade_tier) asks for
   * it here. Any answer goes to the tool, which decides what it means.
   */
  private async proceed(call: GateCall, args: unknown, note: GateNote): Promise<GateVerdict> {
    const question = call.tool.consent ? await call.tool.consent(args, call.ctx) : null;
    if (!question) return { kind: "proceed", args, note };
    const row = await this.request(call, "consent", {
      kind: "approve",
      requiredRole: question.requiredRole,
      title: question.title,
      detail: question.detail,
      payload: { tool: call.tool.name, args, rule: question.rule },
      ttlSec: question.ttlSec,
    });
    note.requestId = row.row.id;
    if (!row.closed) return { kind: "wait", request: row.waiting, created: row.created, note };
    note.decidedBy = row.row.decidedById ?? undefined;
    const decided = parseDecision(row.row);
    const state = row.row.state === "APPROVED" || row.row.state === "REJECTED" || row.row.state === "EXPIRED" ? row.row.state : "CANCELED";
    const consent = {
      state,
      requestId: row.row.id,
      ...(row.row.decidedById ? { by: row.row.decidedById, byName: await this.nameOf(row.row.decidedById) } : {}),
      ...(decided?.comment ? { comment: decided.comment } : {}),
    } as const;
    return { kind: "proceed", args, note, consent };
  }

  /** ask_human: the question becomes a request; the answer becomes the tool's output. */
  private async answerQuestion(call: GateCall, q: HumanQuestion, note: GateNote): Promise<GateVerdict> {
    const row = await this.request(call, "ask_human", {
      kind: q.kind,
      requiredRole: "operator",
      title: q.title,
      detail: q.detail,
      payload: { options: q.options, schema: q.schema },
      ttlSec: q.ttlSec,
    });
    note.requestId = row.row.id;
    if (!row.closed) return { kind: "wait", request: row.waiting, created: row.created, note };
    const decided = parseDecision(row.row);
    const by = await this.nameOf(row.row.decidedById);
    note.decidedBy = row.row.decidedById ?? undefined;
    const comment = decided?.comment ? { comment: decided.comment } : {};
    const state = row.row.state;
    const ok = (output: unknown): GateVerdict => ({ kind: "result", outcome: { ok: true, output }, note });
    if (q.kind === "veto") {
      if (state === "APPROVED")
        return ok({ vetoed: false, by: row.row.decidedById === "system" ? "nobody vetoed in time" : by, ...comment });
      if (state === "REJECTED") return ok({ vetoed: true, by, ...comment });
    }
    if (q.kind === "approve" && (state === "APPROVED" || state === "REJECTED"))
      return ok({ approved: state === "APPROVED", by, ...comment });
    if (state === "APPROVED" && q.kind === "choose") {
      const option = q.options?.find((o) => o.id === decided?.optionId);
      return ok({ optionId: decided?.optionId, label: option?.label, by, ...comment });
    }
    if (state === "APPROVED" && q.kind === "provide") return ok({ value: decided?.value, by, ...comment });
    if (state === "REJECTED") {
      const reviewer = { by, verb: "declined", ...(decided?.comment ? { comment: decided.comment } : {}) } as const;
      return {
        kind: "result",
        outcome: failed("DECLINED_BY_HUMAN", `${by} declined to answer${decided?.comment ? `: ${decided.comment}` : ""}`, reviewer),
        note,
      };
    }
    if (state === "EXPIRED")
      return { kind: "result", outcome: failed("HUMAN_REQUEST_EXPIRED", "Nobody answered before the request expired"), note };
    return { kind: "result", outcome: failed("HUMAN_REQUEST_CANCELED", "The question was canceled"), note };
  }

  /** The doom-loop guard: the same call again and again; a person says whether it goes on. */
  private async loopSuspected(
    call: GateCall,
    loop: { repeats: number; reason: "repeat" | "no_progress" },
    note: GateNote,
  ): Promise<GateVerdict> {
    const { tool, args } = call;
    const repeats = loop.repeats;
    const row = await this.request(call, "loop", {
      kind: "choose",
      requiredRole: "operator",
      title:
        loop.reason === "repeat"
          ? `${tool.name} ran ${repeats} times in a row with the same arguments`
          : `No progress for ${repeats} steps: every tool call failed`,
      detail: "The agent may be stuck in a loop. It is paused until someone decides.",
      payload: { tool: tool.name, args, options: LOOP_OPTIONS },
    });
    note.requestId = row.row.id;
    if (!row.closed) return { kind: "wait", request: row.waiting, created: row.created, note };
    const decided = parseDecision(row.row);
    note.decidedBy = row.row.decidedById ?? undefined;
    if (row.row.state === "APPROVED" && decided?.optionId === "continue") return this.proceed(call, args, note);
    if (row.row.state === "APPROVED" && decided?.optionId === "skip") {
      const message =
        loop.reason === "repeat"
          ? `A person skipped this call: it was the same ${tool.name} call ${repeats} times in a row. Try a different approach.`
          : `A person skipped this call: your last ${repeats} steps all failed. Try a different approach.`;
      return { kind: "result", outcome: failed("LOOP_SKIPPED", message), note };
    }
    const by = await this.nameOf(row.row.decidedById);
    const what = loop.reason === "repeat" ? `${tool.name} repeated ${repeats} times` : `no progress for ${repeats} steps`;
    const reason = row.row.state === "APPROVED" ? `${by} stopped the run: ${what}` : `The run stopped: ${what} and nobody let it go on`;
    return { kind: "cancel", reason, note };
  }

  /** An unsafe call may or may not have happened; a person chooses skip, retry or cancel (docs/runs.md#replay-safety). */
  async replayUnknown(call: GateCall): Promise<GateVerdict> {
    const { tool, args } = call;
    const row = await this.request(call, "replay", {
      kind: "choose",
      requiredRole: "approver",
      title: `Unknown whether ${tool.name} ran before the interruption`,
      detail:
        `The server stopped while ${tool.name} was running. It cannot tell whether the call took effect, ` +
        `and it will not run it again on its own.`,
      payload: { tool: tool.name, args, options: REPLAY_OPTIONS, allowEditedArguments: true },
    });
    const note: GateNote = { requestId: row.row.id };
    if (!row.closed) return { kind: "wait", request: row.waiting, created: row.created, note };
    const decided = parseDecision(row.row);
    note.decidedBy = row.row.decidedById ?? undefined;
    if (row.row.state === "APPROVED" && decided?.optionId === "retry")
      return { kind: "proceed", args: decided.editedArguments ?? args, note };
    if (row.row.state === "APPROVED" && decided?.optionId === "skip") {
      return {
        kind: "result",
        outcome: failed("SKIPPED_BY_HUMAN", `A person chose to skip ${tool.name}; it is unknown whether it ran before the interruption`),
        note,
      };
    }
    const by = await this.nameOf(row.row.decidedById);
    const reason =
      row.row.state === "APPROVED"
        ? `${by} canceled the run after an interrupted ${tool.name} call`
        : row.row.state === "EXPIRED"
          ? `Nobody decided what to do about an interrupted ${tool.name} call`
          : `The run stopped: nobody chose to retry or skip an interrupted ${tool.name} call`;
    return { kind: "cancel", reason, note };
  }

  private async request(
    call: GateCall,
    slot: RequestSlot,
    spec: Pick<NewRequest, "kind" | "requiredRole" | "title" | "detail" | "payload" | "ttlSec">,
  ): Promise<{
    row: RequestRow;
    created: boolean;
    closed: boolean;
    waiting: { id: string; kind: string; title: string; requiredRole: string; expiresAt: string; slot: string };
  }> {
    const { address, ctx } = call;
    const { row, created } = await createRequest(
      this.deps.db,
      {
        ...spec,
        runId: address.runId,
        nodeId: address.nodeId,
        checkpointId: address.checkpointId,
        slot,
        teamId: ctx.teamId ?? null,
        requestedById: ctx.actorId,
      },
      this.ladder,
      this.now(),
    );
    if (created) {
      await this.audit.record({
        kind: "request.transition",
        actorId: `agent:${ctx.agent.name}`,
        actorName: ctx.agent.name,
        onBehalfOf: ctx.actorId,
        channel: "kernel",
        runId: address.runId,
        teamId: row.teamId,
        requestId: row.id,
        subject: call.tool.name,
        toState: "PENDING",
        detail: { kind: row.kind, slot, title: row.title },
      });
      this.deps.onCreated?.({ requestId: row.id, runId: address.runId, state: row.state, teamId: row.teamId });
    }
    const closed = row.state !== "PENDING" && row.state !== "ESCALATED" && !(row.kind === "veto" && row.state === "EXPIRED");
    return {
      row,
      created,
      closed,
      waiting: {
        id: row.id,
        kind: row.kind,
        title: row.title,
        requiredRole: row.requiredRole,
        expiresAt: row.expiresAt.toISOString(),
        slot: row.slot,
      },
    };
  }

  private async emailOf(userId: string): Promise<string | undefined> {
    const now = this.now().getTime();
    const known = this.emails.get(userId);
    if (known && now - known.at < EMAIL_FRESH_MS) return known.email;
    const user = await this.deps.db.user.findUnique({ where: { id: userId }, select: { email: true } });
    // Bounded: entries older than the freshness window are dropped as new ones come.
    if (this.emails.size >= 1000) for (const [id, e] of this.emails) if (now - e.at >= EMAIL_FRESH_MS) this.emails.delete(id);
    this.emails.set(userId, { email: user?.email, at: now });
    return user?.email;
  }

  private async nameOf(userId: string | null): Promise<string> {
    if (!userId) return "A person";
    if (userId === "system") return "Rein";
    const user = await this.deps.db.user.findUnique({ where: { id: userId }, select: { name: true } });
    return user?.name ?? "A person";
  }
}

function failed(code: string, message: string, reviewer?: ToolReviewer): ToolOutcome {
  return { ok: false, error: { code, message, ...(reviewer ? { reviewer } : {}) } };
}

function titleFor(kind: RequestKind, tool: string, args: unknown): string {
  const command = typeof (args as { command?: unknown })?.command === "string" ? (args as { command: string }).command : null;
  const what = command ? `\`${command.length > 200 ? command.slice(0, 200) + "…" : command}\`` : tool;
  return kind === "veto" ? `${command ? "Run" : "Call"} ${what} unless someone vetoes` : `${command ? "Run" : "Call"} ${what}?`;
}
