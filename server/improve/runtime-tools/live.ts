// Runtime tools that are live (docs/runtime-tools.md): hot-loaded into the
// ToolRegistry for the scope they were made for, expiring after their TTL
// unless promoted, every call counted for the trust score.
import type { Db } from "@/server/db";
import { ToolError, type ReplayClass, type ToolContext, type ToolDefinition, type ToolRegistry } from "@/server/tools";
import { runRuntimeTool, type RuntimeCapability, type SandboxHost } from "../sandbox";
import { promotionDue, trustScore } from "../improvements/states";
import { argsValidator } from "./proposal";

/** What a run needs for the scope check. */
export interface ScopedRun {
  agentName: string;
  teamId: string | null;
}

export interface LiveTool {
  id: string;
  name: string;
  version: number;
  scopeAgents: string[];
  scopeTeams: string[];
  expiresAt: Date | null;
}

/** The columns a live tool is built from. */
export const LIVE_SELECT = {
  id: true,
  name: true,
  version: true,
  description: true,
  source: true,
  argsSchema: true,
  capabilities: true,
  replayClass: true,
  scopeAgents: true,
  scopeTeams: true,
  expiresAt: true,
  uses: true,
  successes: true,
  promoted: true,
  promotionAskedAt: true,
} as const;

export interface LiveToolsDeps {
  db: Db;
  registry: ToolRegistry;
  /** Capabilities an admin allows runtime tools (Settings → Improvements). */
  allowedCapabilities(): Promise<RuntimeCapability[]>;
  /** A tool crossed the promotion threshold: ask a person. */
  promotionDue?(improvementId: string): Promise<void>;
  now?: () => Date;
  log: { info(msg: string): void; error(msg: string, err?: unknown): void };
}

const MAX_TIMER_MS = 2 ** 31 - 1;
const MAX_READ_BYTES = 1024 * 1024;

/** In scope: the run's agent is listed (or none are), and so is its team (or none are). */
export function inScope(tool: Pick<LiveTool, "scopeAgents" | "scopeTeams">, run: ScopedRun): boolean {
  return (
    (tool.scopeAgents.length === 0 || tool.scopeAgents.includes(run.agentName)) &&
    (tool.scopeTeams.length === 0 || (run.teamId !== null && tool.scopeTeams.includes(run.teamId)))
  );
}

export class LiveRuntimeTools {
  private readonly live = new Map<string, LiveTool>();
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(private readonly deps: LiveToolsDeps) {}

  private now() {
    return this.deps.now?.() ?? new Date();
  }

  /** Loads every active runtime tool; those whose TTL ran out while Rein was down expire now. */
  async start(): Promise<number> {
    const rows = await this.deps.db.improvement.findMany({ where: { kind: "runtime_tool", state: "active" }, select: LIVE_SELECT });
    for (const row of rows) {
      if (!row.promoted && row.expiresAt && row.expiresAt <= this.now()) await this.expire(row.id);
      else this.load(row);
    }
    return this.live.size;
  }

  /** Stops the TTL timers and takes the live tools out of the registry (a new start loads them again). */
  stop() {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    for (const name of [...this.live.keys()]) this.unload(name);
  }

  /** The names of the live tools in this run's scope. */
  toolsFor(run: ScopedRun): string[] {
    const names: string[] = [];
    for (const tool of this.live.values()) if (inScope(tool, run)) names.push(tool.name);
    return names;
  }

  isLive(name: string): boolean {
    return this.live.has(name);
  }

  list(): LiveTool[] {
    return [...this.live.values()];
  }

  /** Hot-loads a row (a new version replaces the old one under the same name). */
  load(row: LiveRow): void {
    const tool = definitionOf(row, this);
    if (this.live.has(row.name)) this.unload(row.name);
    else if (this.deps.registry.get(row.name)) throw new Error(`${row.name} is the name of a built-in tool`);
    this.deps.registry.register(tool);
    const entry: LiveTool = {
      id: row.id,
      name: row.name,
      version: row.version,
      scopeAgents: parseList(row.scopeAgents),
      scopeTeams: parseList(row.scopeTeams),
      expiresAt: row.expiresAt,
    };
    this.live.set(row.name, entry);
    this.schedule(entry);
  }

  /** Takes a tool out of the registry (disabled, expired, deleted, superseded). */
  unload(name: string): void {
    if (!this.live.delete(name)) return;
    this.deps.registry.unregister(name);
    const timer = this.timers.get(name);
    if (timer) clearTimeout(timer);
    this.timers.delete(name);
  }

  /** Its TTL ran out: active -> expired, and out of the registry. */
  async expire(id: string): Promise<boolean> {
    const row = await this.deps.db.improvement.findUnique({
      where: { id },
      select: { name: true, expiresAt: true, promoted: true, state: true },
    });
    if (!row || row.state !== "active" || row.promoted || !row.expiresAt || row.expiresAt > this.now()) return false;
    const moved = await this.deps.db.improvement.updateMany({
      where: { id, state: "active" },
      data: { state: "expired", stateReason: "Its 7-day TTL ran out without a promotion" },
    });
    if (this.live.get(row.name)?.id === id) this.unload(row.name);
    if (moved.count) this.deps.log.info(`runtime tool ${row.name} expired`);
    return moved.count === 1;
  }

  /** Promoted: no TTL any more. */
  keep(id: string): void {
    for (const tool of this.live.values()) {
      if (tool.id !== id) continue;
      tool.expiresAt = null;
      const timer = this.timers.get(tool.name);
      if (timer) clearTimeout(timer);
      this.timers.delete(tool.name);
    }
  }

  private schedule(tool: LiveTool) {
    if (!tool.expiresAt) return;
    const wait = Math.max(0, tool.expiresAt.getTime() - this.now().getTime());
    const timer = setTimeout(
      () => {
        this.timers.delete(tool.name);
        // A TTL beyond a timer's range is checked again when the timer fires.
        if (wait > MAX_TIMER_MS) this.schedule(tool);
        else void this.expire(tool.id).catch((err) => this.deps.log.error(`expiring runtime tool ${tool.name} failed`, err));
      },
      Math.min(wait, MAX_TIMER_MS),
    );
    timer.unref();
    this.timers.set(tool.name, timer);
  }

  /** The host a call gets: only capabilities the tool declared and an admin allows. */
  async hostFor(capabilities: string[], ctx: ToolContext): Promise<SandboxHost> {
    if (!capabilities.includes("workspace:read")) return {};
    const allowed = await this.deps.allowedCapabilities();
    if (!allowed.includes("workspace:read")) {
      throw new ToolError(
        "CAPABILITY_DENIED",
        "This runtime tool needs workspace:read, which an admin has not allowed runtime tools (Settings → Improvements)",
      );
    }
    // The run's own workspace, through its file sandbox: the server never opens the path.
    return {
      readFile: async (path: string) => {
        const file = await ctx.workspace.readFile(path, { maxBytes: MAX_READ_BYTES });
        return file.data.toString("utf8");
      },
    };
  }

  /** One call, counted once (a replayed call finds its use row and is not counted again). */
  async recordUse(improvementId: string, ctx: ToolContext, ok: boolean, error: string | null, durationMs: number): Promise<void> {
    const { db } = this.deps;
    try {
      await db.improvementUse.create({
        data: {
          improvementId,
          runId: ctx.runId,
          toolCallId: ctx.toolCallId ?? null,
          ok,
          error: error?.slice(0, 500) ?? null,
          durationMs: Math.round(durationMs),
        },
      });
    } catch {
      return; // already counted
    }
    const row = await db.improvement.update({
      where: { id: improvementId },
      data: { uses: { increment: 1 }, ...(ok ? { successes: { increment: 1 } } : {}) },
      select: { uses: true, successes: true, promoted: true, promotionAskedAt: true },
    });
    if (promotionDue(row)) await this.deps.promotionDue?.(improvementId);
  }
}

export type LiveRow = {
  id: string;
  name: string;
  version: number;
  description: string;
  source: string;
  argsSchema: string | null;
  capabilities: string;
  replayClass: string | null;
  scopeAgents: string;
  scopeTeams: string;
  expiresAt: Date | null;
};

function parseList(json: string): string[] {
  try {
    const v = JSON.parse(json);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
}

/** The ToolDefinition of a stored runtime tool: its schema checked safely, its code run in the sandbox. */
function definitionOf(row: LiveRow, live: LiveRuntimeTools): ToolDefinition {
  const schema = JSON.parse(row.argsSchema ?? "{}") as Record<string, unknown>;
  const validator = argsValidator(schema);
  if ("problems" in validator) throw new Error(`runtime tool ${row.name} has an unusable schema: ${validator.problems.join("; ")}`);
  const capabilities = parseList(row.capabilities);
  return {
    name: row.name,
    description: `${row.description} (runtime tool v${row.version}, written by Rein's improver)`,
    args: validator.parser,
    inputSchema: schema,
    policyAlias: "runtime_tool",
    replayClass: (row.replayClass ?? "unsafe_on_replay") as ReplayClass,
    persistence: "none",
    timeoutMs: 15_000,
    async execute(args, ctx) {
      const host = await live.hostFor(capabilities, ctx);
      const outcome = await runRuntimeTool(row.source, args, host);
      await live.recordUse(
        row.id,
        ctx,
        outcome.ok,
        outcome.ok ? null : `${outcome.error.code}: ${outcome.error.message}`,
        outcome.durationMs,
      );
      if (!outcome.ok) throw new ToolError(`RUNTIME_TOOL_${outcome.error.code}`, `${row.name}: ${outcome.error.message}`);
      return outcome.output;
    },
  };
}

export { trustScore };
