// The friction miner (docs/improvements.md): reads one run's event log as it is
// committed and says what went wrong in ways worth learning from. Pure and
// synchronous; per run it keeps a bounded amount of state, and per event it
// does a switch and, for failures only, a bounded scan of the error text.
import type { RunEventRecord } from "@/server/kernel";
import { spanIdOf } from "@/server/telemetry";
import { failureExcerpt, failureOf, type Failure } from "./error-class";
import { loopReason, ruleOf, slotOf, type RequestSlot } from "./human";
import { excerptOf, normalizeMessage, signaturePart } from "./normalize";
import { DEFAULT_MINER_OPTIONS, type FrictionEvidence, type FrictionKind, type FrictionObservation, type MinerOptions } from "./types";

/** Failure classes and occurrence signatures tracked per run; an agent failing in ever new ways cannot grow the state past this. */
const MAX_TRACKED = 256;
/** Evidence kept per repeated failure: the first ones, and the latest in the last place. */
const MAX_EVIDENCE = 10;
/** Open human requests remembered per run (a run waits for one at a time; this is slack). */
const MAX_OPEN_REQUESTS = 64;

/** Failures told by another kind (human_rejected, doom_loop), not again as repeated failures; UNKNOWN_TOOL has its own branch. */
const OWN_KIND_CODES = new Set(["REJECTED_BY_HUMAN", "LOOP_SKIPPED"]);
/** run.state error codes of a run stopped by a limit: server/limits budgets, the kernel's fallback, and the call cap. */
export const BUDGET_STOP_CODES = new Set(["RUN_BUDGET_EXCEEDED", "TEAM_BUDGET_EXCEEDED", "BUDGET_EXCEEDED", "STEP_LIMIT"]);
const TERMINAL_STATES = new Set(["succeeded", "failed", "canceled"]);
/** Requests whose rejection refuses a call the agent wanted to make (an ask_human "no" is an answer; loop and replay refusals stop the run and are told by doom_loop). */
const REFUSAL_SLOTS = new Set<RequestSlot>(["policy", "consent"]);

interface FailureTally {
  tool: string;
  failure: Failure;
  /** The failure's normalised message, for the title. */
  message: string;
  signature: string;
  count: number;
  /** The count last reported (0: not yet). */
  reported: number;
  evidence: FrictionEvidence[];
}

interface OpenRequest {
  tool?: string;
  toolCallId?: string;
  slot: RequestSlot;
  step: number;
}

interface PendingDecision {
  kind: "human_rejected" | "human_edited";
  request: OpenRequest;
  seq: number;
  excerpt?: string;
}

type Payload = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/**
 * Per-run incremental state: feed events in seq order (duplicates and older
 * seqs are ignored), get the observations that became true with them.
 * - repeated_failure: with the failure that reaches repeatThreshold, and once
 *   more with the final count when the run ends, if it grew.
 * - human_rejected, human_edited: with the call's tool.result (it names the
 *   policy rule that asked), or when the run ends if the result never came.
 * - doom_loop, human_takeover, unknown_tool, budget_stop: with their event.
 */
export class RunFrictionMiner {
  private readonly options: MinerOptions;
  private lastSeq = -Infinity;
  private step = 0;
  private readonly failures = new Map<string, FailureTally>();
  private readonly occurrences = new Map<string, number>();
  private readonly requests = new Map<string, OpenRequest>();
  /** Decisions on a call, reported with its result (which names the policy rule), or when the run ends. */
  private readonly decisions = new Map<string, PendingDecision[]>();

  constructor(
    readonly runId: string,
    options: Partial<MinerOptions> = {},
  ) {
    this.options = { ...DEFAULT_MINER_OPTIONS, ...options };
    const t = this.options.repeatThreshold;
    if (!Number.isInteger(t) || t < 1) throw new RangeError(`repeatThreshold must be a whole number of at least 1, not ${t}`);
  }

  observe(events: readonly RunEventRecord[]): FrictionObservation[] {
    const out: FrictionObservation[] = [];
    for (const e of inSeqOrder(events)) {
      if (e.runId !== this.runId || !(e.seq > this.lastSeq)) continue;
      this.lastSeq = e.seq;
      this.apply(e, (e.payload ?? {}) as Payload, out);
    }
    return out;
  }

  private apply(e: RunEventRecord, p: Payload, out: FrictionObservation[]): void {
    switch (e.type) {
      case "model.turn":
      case "tool.call":
        this.step = num(p.step) ?? this.step;
        return;
      case "tool.result":
        return this.toolResult(e, p, out);
      case "human.requested":
        return this.requested(e, p, out);
      case "human.decided":
        return this.decided(e, p, out);
      case "terminal.control":
      case "desktop.control": {
        if (p.action !== "takeover") return;
        const what = e.type === "terminal.control" ? "terminal" : "desktop";
        const reason = str(p.reason);
        const title = `A person took over the ${what}${reason ? `: ${excerptOf(reason, 160)}` : ""}`;
        out.push(
          this.occurrence("human_takeover", `human_takeover|${what}`, title, undefined, {
            runId: this.runId,
            seq: e.seq,
            step: this.step,
            ...(reason ? { excerpt: excerptOf(reason) } : {}),
          }),
        );
        return;
      }
      case "run.state":
        return this.runState(e, p, out);
      default:
        // The other events say nothing about friction.
        return;
    }
  }

  private toolResult(e: RunEventRecord, p: Payload, out: FrictionObservation[]): void {
    const tool = str(p.tool) ?? "_";
    const toolCallId = str(p.toolCallId);
    const step = num(p.step) ?? this.step;
    this.step = step;
    const error = p.error as { code?: unknown; message?: unknown } | undefined;
    if (toolCallId && this.decisions.has(toolCallId)) {
      const policy = (p.gate as { policy?: Record<string, unknown> } | undefined)?.policy;
      const rule = ruleOf(policy);
      for (const d of this.decisions.get(toolCallId)!) {
        // What looked like a policy approval while the policy allowed the call was the tool's own consent question.
        const source = rule ?? (policy && d.request.slot === "policy" ? "consent" : d.request.slot);
        out.push(this.decision(d, source, str(error?.message)));
      }
      this.decisions.delete(toolCallId);
    }
    const failure = failureOf(tool, { ok: p.ok !== false, output: p.output, error });
    if (!failure) return;
    const evidence: FrictionEvidence = {
      runId: this.runId,
      seq: e.seq,
      ...(toolCallId ? { toolCallId } : {}),
      step,
      excerpt: failureExcerpt(failure),
    };
    if (failure.code === "UNKNOWN_TOOL") {
      const name = signaturePart(tool);
      // The name is the model's invention: only its bounded, separator-free form goes anywhere.
      out.push(
        this.occurrence("unknown_tool", `unknown_tool|${name}`, `The agent called ${name}, a tool it does not have`, name, evidence),
      );
    } else if (!OWN_KIND_CODES.has(failure.code)) {
      this.tally(tool, failure, evidence, out);
    }
  }

  private tally(tool: string, failure: Failure, evidence: FrictionEvidence, out: FrictionObservation[]): void {
    const message = normalizeMessage(failure.text);
    const signature = `repeated_failure|${signaturePart(tool)}|${failure.code}|${message}`;
    let t = this.failures.get(signature);
    if (!t) {
      if (this.failures.size >= MAX_TRACKED && !this.evictFailure()) return;
      t = { tool, failure, message, signature, count: 0, reported: 0, evidence: [] };
      this.failures.set(signature, t);
    }
    t.count++;
    if (t.evidence.length < MAX_EVIDENCE) t.evidence.push(evidence);
    else t.evidence[MAX_EVIDENCE - 1] = evidence;
    if (t.count === this.options.repeatThreshold) out.push(this.repeated(t));
  }

  /** Makes room by forgetting the oldest class not yet reported; false when every tracked class was. */
  private evictFailure(): boolean {
    for (const [key, t] of this.failures) {
      if (t.reported === 0) return this.failures.delete(key);
    }
    return false;
  }

  private repeated(t: FailureTally): FrictionObservation {
    t.reported = t.count;
    const code = t.failure.code.startsWith("exit:") ? `exit ${t.failure.code.slice(5)}` : t.failure.code;
    const title = `${signaturePart(t.tool)} failed ${t.count} times (${code})${t.message ? `: ${t.message}` : ""}`;
    return {
      kind: "repeated_failure",
      signature: t.signature,
      title,
      tool: t.tool,
      count: t.count,
      evidence: t.evidence.map((ev) => this.withSpan(ev)),
    };
  }

  private requested(e: RunEventRecord, p: Payload, out: FrictionObservation[]): void {
    const requestId = str(p.requestId);
    const title = str(p.title);
    const request: OpenRequest = {
      tool: str(p.tool),
      toolCallId: str(p.toolCallId),
      slot: slotOf({ title, tool: str(p.tool), slot: str(p.slot) }),
      step: this.step,
    };
    if (requestId) {
      if (this.requests.size >= MAX_OPEN_REQUESTS) this.requests.delete(this.requests.keys().next().value!);
      this.requests.set(requestId, request);
    }
    if (request.slot !== "loop") return;
    const reason = loopReason(title);
    const tool = request.tool ? signaturePart(request.tool) : "_";
    const signature = reason === "no_progress" ? "doom_loop|no_progress" : `doom_loop|${tool}|${reason ?? "loop"}`;
    const evidence = this.evidence(e.seq, request, title ? excerptOf(title) : undefined);
    out.push(
      this.occurrence(
        "doom_loop",
        signature,
        title ? excerptOf(title) : `The doom-loop guard paused the run at ${tool}`,
        request.tool,
        evidence,
      ),
    );
  }

  private decided(e: RunEventRecord, p: Payload, out: FrictionObservation[]): void {
    const requestId = str(p.requestId) ?? "";
    const request = this.requests.get(requestId) ?? { slot: "unknown", step: this.step };
    this.requests.delete(requestId);
    const comment = str(p.comment);
    const kinds: PendingDecision["kind"][] = [];
    if (p.state === "REJECTED" && (REFUSAL_SLOTS.has(request.slot) || request.slot === "unknown")) kinds.push("human_rejected");
    if (p.edited === true) kinds.push("human_edited");
    for (const kind of kinds) {
      const d: PendingDecision = { kind, request, seq: e.seq, ...(comment ? { excerpt: excerptOf(comment) } : {}) };
      if (!request.toolCallId) {
        out.push(this.decision(d, request.slot));
        continue;
      }
      const list = this.decisions.get(request.toolCallId) ?? [];
      list.push(d);
      this.decisions.set(request.toolCallId, list);
    }
  }

  /** `source`: the policy rule that asked (known once the call's result is in), else the request's slot. */
  private decision(d: PendingDecision, source: string, message?: string): FrictionObservation {
    const { request } = d;
    const tool = request.tool ? signaturePart(request.tool) : "_";
    const verb = d.kind === "human_rejected" ? "rejected" : "edited the arguments of";
    const title = `A person ${verb} a ${tool} call${source.startsWith("rule:") ? ` (${source.slice(5)})` : ""}${d.excerpt ? `: ${d.excerpt}` : ""}`;
    const excerpt = d.excerpt ?? (message ? excerptOf(message) : undefined);
    return this.occurrence(d.kind, `${d.kind}|${tool}|${source}`, excerptOf(title), request.tool, this.evidence(d.seq, request, excerpt));
  }

  private runState(e: RunEventRecord, p: Payload, out: FrictionObservation[]): void {
    const to = str(p.to);
    if (!to || !TERMINAL_STATES.has(to)) return;
    const error = p.error as { code?: unknown; message?: unknown } | undefined;
    const code = str(error?.code);
    if (to === "failed" && code && BUDGET_STOP_CODES.has(code)) {
      const message = str(error?.message) ?? str(p.reason) ?? code;
      const evidence = { runId: this.runId, seq: e.seq, step: this.step, excerpt: excerptOf(message) };
      out.push(
        this.occurrence(
          "budget_stop",
          `budget_stop|${code}`,
          `The run stopped at a limit (${code}): ${excerptOf(message, 140)}`,
          undefined,
          evidence,
        ),
      );
    }
    // What only the end can tell: the final count of each repeated failure that grew, decisions whose call never got a result.
    for (const t of this.failures.values()) if (t.count >= this.options.repeatThreshold && t.count > t.reported) out.push(this.repeated(t));
    for (const list of this.decisions.values()) for (const d of list) out.push(this.decision(d, d.request.slot));
    this.decisions.clear();
  }

  /** One observation per occurrence; `count` says how many of this signature the run has had. */
  private occurrence(
    kind: FrictionKind,
    signature: string,
    title: string,
    tool: string | undefined,
    evidence: FrictionEvidence,
  ): FrictionObservation {
    const count = (this.occurrences.get(signature) ?? 0) + 1;
    if (this.occurrences.has(signature) || this.occurrences.size < MAX_TRACKED) this.occurrences.set(signature, count);
    return { kind, signature, title, ...(tool !== undefined ? { tool } : {}), count, evidence: [this.withSpan(evidence)] };
  }

  private evidence(seq: number, request: OpenRequest, excerpt: string | undefined): FrictionEvidence {
    return {
      runId: this.runId,
      seq,
      ...(request.toolCallId ? { toolCallId: request.toolCallId } : {}),
      step: request.step,
      ...(excerpt ? { excerpt } : {}),
    };
  }

  /** The tool call's span (telemetry's deterministic id), computed only for what is reported. */
  private withSpan(ev: FrictionEvidence): FrictionEvidence {
    return ev.toolCallId ? { ...ev, spanId: spanIdOf(this.runId, "tool", ev.toolCallId) } : { ...ev };
  }
}

function inSeqOrder(events: readonly RunEventRecord[]): readonly RunEventRecord[] {
  for (let i = 1; i < events.length; i++) if (events[i].seq < events[i - 1].seq) return [...events].sort((a, b) => a.seq - b.seq);
  return events;
}

/** Whole-log convenience: every observation for one run's events (the run of the first event). */
export function mineRun(events: readonly RunEventRecord[], options?: Partial<MinerOptions>): FrictionObservation[] {
  if (events.length === 0) return [];
  return new RunFrictionMiner(events[0].runId, options).observe(events);
}
