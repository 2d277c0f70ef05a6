// ToolRunner dispatch (SPEC section 7): validate -> replay cache -> execute
// with timeout -> record. Policy and human gates plug in before the cache.
import { z } from "zod";
import type { ToolSpec } from "@/server/models";
import { inputHash, type CacheKey, type ReplayCache } from "./replay-cache";
import {
  ReplayUnsafeError,
  ToolError,
  type CallAddress,
  type ToolCallRequest,
  type ToolContext,
  type ToolDefinition,
  type ToolOutcome,
  type ToolRunResult,
} from "./types";

const DEFAULT_TIMEOUT_MS = 10 * 60_000;

export class ToolRegistry {
  private readonly tools = new Map<string, ToolDefinition>();

  constructor(tools: ToolDefinition[] = []) {
    tools.forEach((t) => this.register(t));
  }

  register(tool: ToolDefinition) {
    if (this.tools.has(tool.name)) throw new Error(`Tool ${tool.name} is registered twice`);
    this.tools.set(tool.name, tool);
  }

  get(name: string): ToolDefinition | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /** The tool list a model sees, for the given tool names. */
  specs(names: string[]): ToolSpec[] {
    return names.flatMap((n) => {
      const tool = this.tools.get(n);
      if (!tool) return [];
      const schema = z.toJSONSchema(tool.args, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
      delete schema.$schema;
      return [{ name: tool.name, description: tool.description, inputSchema: schema }];
    });
  }
}

export class ToolRunner {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly cache: ReplayCache,
  ) {}

  async run(call: ToolCallRequest, address: CallAddress, ctx: ToolContext, allowed: string[]): Promise<ToolRunResult> {
    const started = performance.now();
    const done = (outcome: ToolOutcome, cached: boolean, tool?: ToolDefinition): ToolRunResult => ({
      outcome,
      cached,
      replayClass: tool?.replayClass ?? null,
      durationMs: performance.now() - started,
    });

    const tool = this.registry.get(call.toolName);
    if (!tool || !allowed.includes(call.toolName)) {
      const known = allowed.join(", ");
      return done(fail("UNKNOWN_TOOL", `Tool "${call.toolName}" is not available to this agent (available: ${known})`), false);
    }
    const parsed = tool.args.safeParse(call.args);
    if (!parsed.success) {
      const detail = parsed.error.issues.map((i) => `${i.path.join(".") || "(arguments)"}: ${i.message}`).join("; ");
      return done(fail("INVALID_ARGUMENTS", `Invalid arguments for ${tool.name}: ${detail}`), false, tool);
    }
    const args = parsed.data;
    const key: CacheKey = {
      ...address,
      toolName: tool.name,
      inputHash: inputHash(args, tool.idempotencyKey?.(args)),
    };

    const entry = await this.cache.get(key);
    if (entry?.status === "done") return done(entry.outcome, true, tool);
    if (entry?.status === "intent") {
      if (tool.replayClass === "unsafe_on_replay") throw new ReplayUnsafeError(tool.name, address);
      // pure and keyed tools are safe to run again.
    }
    if (tool.replayClass === "unsafe_on_replay") await this.cache.writeIntent(key, tool.replayClass);

    const outcome = await execute(tool, args, ctx);
    await this.cache.writeResult(key, tool.replayClass, outcome);
    return done(outcome, false, tool);
  }
}

async function execute(tool: ToolDefinition, args: unknown, ctx: ToolContext): Promise<ToolOutcome> {
  const timeoutMs = tool.timeoutMs ?? DEFAULT_TIMEOUT_MS;
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
    if (err instanceof ToolError) return fail(err.code, err.message);
    return fail("TOOL_FAILED", `${tool.name} failed: ${(err as Error)?.message ?? String(err)}`);
  } finally {
    clearTimeout(timer);
  }
}

function fail(code: string, message: string): ToolOutcome {
  return { ok: false, error: { code, message } };
}
