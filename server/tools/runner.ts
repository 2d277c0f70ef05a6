// ToolRunner dispatch (docs/architecture.md#the-path-of-a-run): validate ->
// replay cache -> execute with timeout -> record. Policy and human gates plug
// in before the cache.
import { z } from "zod";
import type { ToolSpec } from "@/server/models";
import { inputHash, type CacheKey, type ReplayCache } from "./replay-cache";
import {
  ReplayUnsafeError,
  type CallGate,
  type GateNote,
  type GateVerdict,
  ToolError,
  type CallAddress,
  type ToolCallRequest,
  type ToolContext,
  type ToolDefinition,
  type ToolOutcome,
  type ToolReviewer,
  type ToolRunResult,
  type ToolSecretAccess,
} from "./types";

/** The deadline of a call to a tool that declares none. */
export const DEFAULT_TIMEOUT_MS = 10 * 60_000;

/** How long the runner waits for this call: the tool's own deadline for these arguments, else its fixed one, else the default. */
export function callDeadlineMs(
  tool: Pick<ToolDefinition, "timeoutMs" | "timeoutFor">,
  args: unknown,
  defaultMs = DEFAULT_TIMEOUT_MS,
): number {
  const own = tool.timeoutFor?.(args);
  if (own !== undefined && Number.isFinite(own) && own > 0) return own;
  return tool.timeoutMs ?? defaultMs;
}

export interface ToolRunnerOptions {
  /** The deadline of a call to a tool that declares none (tests make it short). */
  defaultTimeoutMs?: number;
}

export class ToolRegistry {
  private readonly tools = new Map<string, ToolDefinition>();
  /** Each definition's spec, made once: turning a zod schema into JSON Schema before every model call was a tenth of the bare step. */
  private readonly specOf = new WeakMap<ToolDefinition, ToolSpec>();

  constructor(tools: ToolDefinition[] = []) {
    tools.forEach((t) => this.register(t));
  }

  register(tool: ToolDefinition) {
    if (this.tools.has(tool.name)) throw new Error(`Tool ${tool.name} is registered twice`);
    this.tools.set(tool.name, tool);
  }

  /** Takes a hot-loaded tool (a runtime tool) out again; built-in tools are never unregistered. */
  unregister(name: string): boolean {
    return this.tools.delete(name);
  }

  get(name: string): ToolDefinition | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /** Why these arguments are not valid for the tool, or null when they are. */
  validate(name: string, args: unknown): string | null {
    const tool = this.tools.get(name);
    if (!tool) return `there is no tool "${name}"`;
    const parsed = tool.args.safeParse(args);
    return parsed.success ? null : issues(parsed.error);
  }

  /** The tool list a model sees, for the given tool names. The specs are shared between calls: read them, never change them. */
  specs(names: string[]): ToolSpec[] {
    return names.flatMap((n) => {
      const tool = this.tools.get(n);
      if (!tool) return [];
      let spec = this.specOf.get(tool);
      if (!spec) {
        const schema = tool.inputSchema
          ? structuredClone(tool.inputSchema)
          : (z.toJSONSchema(tool.args, { io: "input", unrepresentable: "any" }) as Record<string, unknown>);
        delete schema.$schema;
        spec = { name: tool.name, description: tool.description, inputSchema: schema };
        this.specOf.set(tool, spec);
      }
      return [spec];
    });
  }
}

export class ToolRunner {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly cache: ReplayCache,
    /** Policy and people; absent in unit tests (everything allowed, ReplayUnsafeError thrown). */
    private readonly gate?: CallGate,
    /** The run's secrets for tools' processes; absent: tools get none and nothing is redacted. */
    private readonly secrets?: ToolSecretAccess,
    private readonly options: ToolRunnerOptions = {},
  ) {}

  /**
   * A tool may put the run's secrets in its process's environment
   * (ctx.secretEnv); whatever it returns has every known secret value
   * redacted here, at the source, before the replay cache, the event log,
   * traces or the model see it (docs/secrets.md#how-a-tool-gets-the-value).
   */
  async run(call: ToolCallRequest, address: CallAddress, ctx: ToolContext, allowed: string[]): Promise<ToolRunResult> {
    const secrets = this.secrets;
    if (!secrets) return this.dispatch(call, address, ctx, allowed);
    const names = ctx.secrets ?? [];
    await secrets.refresh(names);
    const run = { agent: ctx.agent.name, teamId: ctx.teamId ?? null, callerCommands: ctx.callerCommands ?? false };
    const result = await this.dispatch(call, address, { ...ctx, secretEnv: () => secrets.environment(names, run) }, allowed);
    return { ...result, outcome: secrets.redact(result.outcome) };
  }

  private async dispatch(call: ToolCallRequest, address: CallAddress, ctx: ToolContext, allowed: string[]): Promise<ToolRunResult> {
    const started = performance.now();
    const done = (outcome: ToolOutcome, cached: boolean, tool?: ToolDefinition): ToolRunResult => ({
      outcome,
      cached,
      replayClass: tool?.replayClass ?? null,
      durationMs: performance.now() - started,
      ...(tool?.origin ? { origin: tool.origin } : {}),
    });

    const tool = this.registry.get(call.toolName);
    if (!tool || !allowed.includes(call.toolName)) {
      const known = allowed.join(", ");
      return done(fail("UNKNOWN_TOOL", `Tool "${call.toolName}" is not available to this agent (available: ${known})`), false);
    }
    const parsed = tool.args.safeParse(call.args);
    if (!parsed.success) return done(fail("INVALID_ARGUMENTS", `Invalid arguments for ${tool.name}: ${issues(parsed.error)}`), false, tool);
    let args = parsed.data;
    let note: GateNote | undefined;
    if (this.gate) {
      const verdict = await this.gate.check({ tool, args, address, ctx });
      note = verdict.note;
      if (verdict.kind !== "proceed") return { ...gated(verdict, done, tool), gate: note };
      // The person's answer to the consent the tool asked for; the tool decides what it means.
      if (verdict.consent) ctx = { ...ctx, consent: verdict.consent };
      if (verdict.args !== args) {
        // A person edited the arguments; they must still be valid for the tool.
        const edited = tool.args.safeParse(verdict.args);
        if (!edited.success)
          return {
            ...done(fail("INVALID_ARGUMENTS", `The edited arguments for ${tool.name} are not valid: ${issues(edited.error)}`), false, tool),
            gate: note,
          };
        args = edited.data;
        note = { ...note, args };
      }
    }
    const key: CacheKey = {
      ...address,
      toolName: tool.name,
      inputHash: inputHash(args, tool.idempotencyKey?.(args)),
    };

    const entry = await this.cache.get(key);
    if (entry?.status === "done") return { ...done(entry.outcome, true, tool), gate: note };
    if (entry?.status === "intent" && tool.replayClass === "unsafe_on_replay") {
      // pure and keyed tools are safe to run again; an unsafe one needs a person.
      if (!this.gate) throw new ReplayUnsafeError(tool.name, address);
      const verdict = await this.gate.replayUnknown({ tool, args, address, ctx });
      if (verdict.kind !== "proceed") return { ...gated(verdict, done, tool), gate: verdict.note ?? note };
      const retried = tool.args.safeParse(verdict.args);
      if (!retried.success)
        return {
          ...done(fail("INVALID_ARGUMENTS", `The new arguments for ${tool.name} are not valid: ${issues(retried.error)}`), false, tool),
          gate: note,
        };
      args = retried.data;
      const retryHash = inputHash(args, tool.idempotencyKey?.(args));
      note = verdict.note ?? note;
      // A retry with the same arguments reuses the intent row; new arguments get their own.
      if (retryHash !== key.inputHash) {
        key.inputHash = retryHash;
        const retry = await this.cache.get(key);
        if (retry?.status === "done") return { ...done(retry.outcome, true, tool), gate: note };
        // The retry itself was interrupted: a person has been asked once already.
        if (retry?.status === "intent") throw new ReplayUnsafeError(tool.name, address);
        await this.cache.writeIntent(key, tool.replayClass);
      }
    } else if (tool.replayClass === "unsafe_on_replay") {
      await this.cache.writeIntent(key, tool.replayClass);
    }

    const executed = await execute(tool, args, ctx, callDeadlineMs(tool, args, this.options.defaultTimeoutMs));
    const outcome = this.secrets ? this.secrets.redact(executed) : executed;
    await this.cache.writeResult(key, tool.replayClass, outcome);
    return { ...done(outcome, false, tool), gate: note };
  }
}

type Done = (outcome: ToolOutcome, cached: boolean, tool?: ToolDefinition) => ToolRunResult;

/** A verdict that stops the call before it runs. */
function gated(verdict: Exclude<GateVerdict, { kind: "proceed" }>, done: Done, tool: ToolDefinition): ToolRunResult {
  switch (verdict.kind) {
    case "result":
      return done(verdict.outcome, false, tool);
    case "wait":
      return { ...done(fail("WAITING_FOR_HUMAN", "Waiting for a person to decide"), false, tool), waitingFor: verdict.request };
    case "cancel":
      return { ...done(fail("CANCELED_BY_HUMAN", verdict.reason), false, tool), cancelRun: verdict.reason };
  }
}

function issues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join(".") || "(arguments)"}: ${i.message}`).join("; ");
}

async function execute(tool: ToolDefinition, args: unknown, ctx: ToolContext, timeoutMs: number): Promise<ToolOutcome> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const output = await Promise.race([
      tool.execute(args, ctx),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new ToolError("TIMEOUT", `${tool.name} took longer than ${timeoutMs / 1000} s`)), timeoutMs);
      }),
    ]);
    return { ok: true, output: output ?? null };
  } catch (err) {
    if (err instanceof ToolError) return fail(err.code, err.message, err.reviewer);
    return fail("TOOL_FAILED", `${tool.name} failed: ${(err as Error)?.message ?? String(err)}`);
  } finally {
    clearTimeout(timer);
  }
}

function fail(code: string, message: string, reviewer?: ToolReviewer): ToolOutcome {
  return { ok: false, error: { code, message, ...(reviewer ? { reviewer } : {}) } };
}
