// Agent specs: (name, instructions, model/task class, tools, handoffs,
// guardrails, tier), stored and versioned (docs/agents.md).
import { DomainError } from "@/server/errors";
import type { Db } from "@/server/db";
import type { TaskClass } from "@/server/models";

export interface AgentSpec {
  name: string;
  version: number;
  description: string;
  instructions: string;
  model: string;
  taskClass: TaskClass;
  tools: string[];
  handoffs: string[];
  guardrails: Record<string, unknown>;
  /**
   * Secrets its tools may use, by name (docs/secrets.md); each reaches a tool's
   * process as a variable. Stored in the guardrails JSON as "secrets".
   */
  secrets?: string[];
  tier: string;
  builtIn: boolean;
  /**
   * A hosted agent (docs/hosted-agents.md): the program Rein starts and talks
   * to over ACP instead of taking model steps itself. Stored in the guardrails
   * JSON as "hosted".
   */
  hosted?: { program: string };
}

export class UnknownAgentError extends DomainError {
  constructor(name: string, known: string[]) {
    super("UNKNOWN_AGENT", `Unknown agent "${name}". Available agents: ${known.join(", ") || "none"}`);
    this.name = "UnknownAgentError";
  }
}

/** An archived agent keeps its runs and versions but starts no new run. */
export class ArchivedAgentError extends DomainError {
  constructor(name: string) {
    super("INVALID_INPUT", `The agent ${name} is archived; unarchive it to run it`);
    this.name = "ArchivedAgentError";
  }
}

/** The built-in agent that runs hack cycles (docs/improvements.md#the-hack-cycle). */
export const IMPROVER_AGENT = "improver";
/** The built-in agent of the reviewed-change demo (docs/changes.md#try-it-with-the-demo). */
export const DEMO_FIX_AGENT = "demo-fix";
export const DEMO_MCP_AGENT = "demo-mcp";
/** The built-in hosted agent (docs/hosted-agents.md#try-it). */
export const DEMO_HOSTED_AGENT = "demo-hosted";

const WORKSPACE_TOOLS = ["read_file", "write_file", "edit_file", "list_files", "search", "shell", "read_output", "update_tasks"];
const BROWSER_TOOL_NAMES = [
  "browser_navigate",
  "browser_click",
  "browser_type",
  "browser_press",
  "browser_scroll",
  "browser_screenshot",
  "browser_read",
  "browser_wait",
];

export const BUILTIN_SPECS: Array<Omit<AgentSpec, "version" | "builtIn">> = [
  {
    name: "demo-coder",
    description: "Writes a small program and runs its tests (scripted demo).",
    instructions:
      "You are a careful software engineer working in a git repository. Keep a task list, write small modules with tests, run the tests, and commit when they pass.",
    model: "scripted/demo-coder",
    taskClass: "code",
    tools: WORKSPACE_TOOLS,
    handoffs: [],
    guardrails: {},
    tier: "T1",
  },
  {
    name: "demo-team",
    description: "An orchestrator that plans the work and hands off to a coding specialist (scripted demo).",
    instructions:
      "You are the orchestrator. Break the goal into a plan, write it to PLAN.md, and hand off implementation to the specialist.",
    model: "scripted/demo-team",
    taskClass: "plan",
    tools: ["read_file", "write_file", "list_files", "update_tasks", "handoff"],
    handoffs: ["demo-specialist"],
    guardrails: {},
    tier: "T1",
  },
  {
    name: "demo-deploy",
    description: "Prepares a deploy and runs it once a person approves (scripted demo of policy approvals).",
    instructions:
      "You deploy the project. Prepare and check the deploy script, then deploy to production. Risky commands wait for a person's approval.",
    model: "scripted/demo-deploy",
    taskClass: "code",
    tools: [...WORKSPACE_TOOLS, "ask_human"],
    handoffs: [],
    guardrails: {},
    tier: "T1",
  },
  {
    name: "demo-release",
    description: "Asks people to pick a draft and give a value, then publishes unless vetoed (scripted demo of choose, provide and veto).",
    instructions:
      "You prepare a release. Ask a person to choose the release-notes draft and to provide the discount cap, then publish; people may veto publishing.",
    model: "scripted/demo-release",
    taskClass: "plan",
    tools: [...WORKSPACE_TOOLS, "ask_human"],
    handoffs: [],
    guardrails: {},
    tier: "T1",
  },
  {
    name: "demo-browser",
    description:
      "Moves from its terminal to a desktop (T2) and fills in a web form in Chromium while you watch (scripted demo of compute tiers).",
    instructions:
      "You order stickers on a web shop. Note the order in the workspace, ask for a desktop with upgrade_tier (T2) because the shop is a web page, " +
      "fill in and send its form with the browser tools, read the result, and give a person a moment to confirm it on the Desktop tab.",
    model: "scripted/demo-browser",
    taskClass: "plan",
    tools: [...WORKSPACE_TOOLS, "ask_human", "upgrade_tier", ...BROWSER_TOOL_NAMES],
    handoffs: [],
    // Reaches T2's default threshold (0.55): a web form needs the desktop.
    guardrails: { complexity: 0.6 },
    tier: "T1",
  },
  {
    name: "demo-csv",
    description:
      "Adds up a column of a CSV export; struggles without a CSV tool, which the improver can write (scripted demo of self-improvement).",
    instructions:
      "You handle small data chores in the workspace. Save the data you are given, compute what the goal asks for, and write the result to the file it names. Prefer a tool made for the job over shell one-liners.",
    model: "scripted/demo-csv",
    taskClass: "code",
    tools: WORKSPACE_TOOLS,
    handoffs: [],
    guardrails: {},
    tier: "T1",
  },
  {
    name: DEMO_FIX_AGENT,
    description:
      "Fixes a failing test in a repository and proposes the change for review; a person approves and merges it (scripted demo of reviewed changes).",
    instructions:
      "You work in a git worktree of a repository, on a branch of your own. Run its tests, find the cause of a failure, make the smallest fix, run the tests again, " +
      "and call propose_change with a title and your hypothesis. You cannot merge: an approver reviews the diff and the test log first.",
    model: "scripted/demo-fix",
    taskClass: "code",
    tools: [...WORKSPACE_TOOLS, "propose_change"],
    handoffs: [],
    guardrails: { callCap: 20 },
    tier: "T1",
  },
  {
    name: DEMO_MCP_AGENT,
    description:
      "Uses the tools of the bundled demo MCP server: echo, a sum and a long operation with live progress (scripted demo of MCP tools).",
    instructions:
      "You use tools an admin attached from MCP servers; their names are <server>__<tool>. Call them one at a time, read each answer, and report only what the tools returned.",
    model: "scripted/demo-mcp",
    taskClass: "summarize",
    tools: [],
    handoffs: [],
    guardrails: { callCap: 10 },
    tier: "T0",
  },
  {
    name: DEMO_HOSTED_AGENT,
    description:
      "Rein's test agent, a program of its own speaking ACP, in the run's sandbox: its files, commands and deploy go through Rein (scripted demo of hosted agents).",
    instructions: "Work in /workspace. Keep a plan, and ask before anything that deploys.",
    model: "scripted/demo-hosted",
    taskClass: "code",
    tools: [],
    handoffs: [],
    guardrails: { callCap: 10 },
    tier: "T1",
    hosted: { program: "rein-test-agent" },
  },
  {
    name: "demo-long",
    description:
      "Builds a library module by module over several fresh sessions: a small context window, a task list and notes that carry the work (scripted demo of long runs).",
    instructions:
      "You work through a long task in small steps. Keep the task list and your progress notes current with update_tasks, and commit each finished step: " +
      "when the conversation grows too long, a fresh session starts from the goal, the task list, your notes and the git log, not from the conversation.",
    model: "scripted/demo-long",
    taskClass: "code",
    tools: ["read_file", "write_file", "list_files", "shell", "update_tasks"],
    handoffs: [],
    guardrails: { callCap: 40 },
    tier: "T1",
  },
  {
    name: IMPROVER_AGENT,
    description:
      "Rein's own improver: answers friction other agents ran into with a runtime tool or a skill, tested against trigger cases before a gate it cannot touch.",
    instructions:
      "You improve the tools and know-how of other agents. You are given friction Rein recorded (what failed, how often, with evidence). " +
      "Write the smallest runtime tool (a JSON schema and a JavaScript function run(args) for a sandbox with no host access) or skill that removes it, " +
      "with trigger cases taken from the evidence, then test the tool. You cannot deploy anything yourself: Rein's gate runs the cases again and decides.",
    model: "scripted/improver",
    taskClass: "code",
    tools: ["propose_runtime_tool", "test_runtime_tool", "propose_skill", "propose_extension"],
    handoffs: [],
    guardrails: { callCap: 12 },
    tier: "T0",
  },
  {
    name: "demo-specialist",
    description: "The coding specialist demo-team hands off to (scripted demo).",
    instructions: "You are a coding specialist. Follow PLAN.md, implement it with tests, and run them.",
    model: "scripted/demo-team",
    taskClass: "code",
    tools: WORKSPACE_TOOLS,
    handoffs: [],
    guardrails: {},
    tier: "T1",
  },
];

export interface SpecSource {
  /**
   * The given version (a draft's is negative), or the latest saved version
   * when version is omitted: drafts are never the latest.
   */
  get(name: string, version?: number): Promise<AgentSpec | null>;
  list(): Promise<AgentSpec[]>;
}

export type SpecRow = {
  name: string;
  version: number;
  description: string;
  instructions: string;
  model: string;
  taskClass: string;
  tools: string;
  handoffs: string;
  guardrails: string;
  tier: string;
  builtIn: boolean;
};

/** A stored row as the spec the loop runs; the guardrails JSON also holds the secrets' names. */
export function fromRow(r: SpecRow): AgentSpec {
  const { secrets, hosted, ...guardrails } = JSON.parse(r.guardrails) as Record<string, unknown>;
  const program = hosted && typeof hosted === "object" ? (hosted as { program?: unknown }).program : undefined;
  return {
    ...r,
    taskClass: r.taskClass as TaskClass,
    tools: JSON.parse(r.tools),
    handoffs: JSON.parse(r.handoffs),
    guardrails,
    secrets: Array.isArray(secrets) ? secrets.filter((s): s is string => typeof s === "string") : [],
    ...(typeof program === "string" ? { hosted: { program } } : {}),
  };
}

/** The columns a spec is stored in (secrets go into the guardrails JSON). */
export function specColumns(
  spec: Pick<
    AgentSpec,
    "description" | "instructions" | "model" | "taskClass" | "tools" | "handoffs" | "guardrails" | "secrets" | "tier" | "hosted"
  >,
) {
  return {
    description: spec.description,
    instructions: spec.instructions,
    model: spec.model,
    taskClass: spec.taskClass,
    tools: JSON.stringify(spec.tools),
    handoffs: JSON.stringify(spec.handoffs),
    guardrails: JSON.stringify({
      ...spec.guardrails,
      ...(spec.secrets?.length ? { secrets: spec.secrets } : {}),
      ...(spec.hosted ? { hosted: spec.hosted } : {}),
    }),
    tier: spec.tier,
  };
}

export const SPEC_SELECT = {
  name: true,
  version: true,
  description: true,
  instructions: true,
  model: true,
  taskClass: true,
  tools: true,
  handoffs: true,
  guardrails: true,
  tier: true,
  builtIn: true,
} as const;

export class PrismaSpecSource implements SpecSource {
  private readonly cache = new Map<string, AgentSpec>();
  constructor(private readonly db: Db) {}

  async get(name: string, version?: number): Promise<AgentSpec | null> {
    if (version !== undefined) {
      const id = `${name}@${version}`;
      const hit = this.cache.get(id);
      if (hit) return hit;
      const row = await this.db.agentSpec.findUnique({ where: { name_version: { name, version } }, select: SPEC_SELECT });
      if (!row) return null;
      const spec = fromRow(row);
      if (version > 0) this.cache.set(id, spec); // a stored version never changes; drafts are run once or twice
      return spec;
    }
    const row = await this.db.agentSpec.findFirst({ where: { name, draft: false }, orderBy: { version: "desc" }, select: SPEC_SELECT });
    return row ? fromRow(row) : null;
  }

  async list(): Promise<AgentSpec[]> {
    const rows = await this.db.agentSpec.findMany({
      where: { draft: false },
      select: SPEC_SELECT,
      orderBy: [{ name: "asc" }, { version: "desc" }],
    });
    const latest = new Map<string, AgentSpec>();
    for (const r of rows) if (!latest.has(r.name)) latest.set(r.name, fromRow(r));
    return [...latest.values()];
  }
}

export class MemorySpecSource implements SpecSource {
  constructor(private readonly specs: AgentSpec[]) {}
  async get(name: string, version?: number) {
    const all = this.specs.filter((s) => s.name === name && (version === undefined ? s.version > 0 : s.version === version));
    return all.sort((a, b) => b.version - a.version)[0] ?? null;
  }
  async list() {
    return this.specs;
  }
}

/**
 * Stores the built-in specs, each with its Agent row (everyone sees it; an
 * admin may archive it, which stays); a changed built-in gets a new version.
 */
export async function seedBuiltinSpecs(db: Db): Promise<void> {
  for (const spec of BUILTIN_SPECS) {
    const data = specColumns(spec);
    await db.agent.upsert({
      where: { name: spec.name },
      create: { name: spec.name, builtIn: true, teamId: null },
      update: { builtIn: true },
    });
    const latest = await db.agentSpec.findFirst({ where: { name: spec.name, draft: false }, orderBy: { version: "desc" } });
    const same = latest && Object.entries(data).every(([k, v]) => (latest as Record<string, unknown>)[k] === v);
    if (same) continue;
    await db.agentSpec.create({
      data: {
        ...data,
        name: spec.name,
        version: (latest?.version ?? 0) + 1,
        builtIn: true,
        changeNote: latest ? "Updated with Rein" : "Comes with Rein",
      },
    });
  }
}
