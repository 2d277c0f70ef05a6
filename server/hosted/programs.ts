// The programs Rein can host over the Agent Client Protocol
// (docs/hosted-agents.md#the-programs): where each one's files are on this
// server, how it is started inside the run's sandbox, and how it is pointed at
// Rein's model gateway instead of its vendor.
import fs from "node:fs";
import path from "node:path";
import { installedPackage, packageFolder, type ProgramPackage } from "./install";

/** Where a hosted program sees Rein's model gateway inside its sandbox (a relay to Rein's socket). */
export interface GatewayEndpoint {
  /** "http://127.0.0.1:<port>" inside the sandbox. */
  origin: string;
  /** The run's gateway token; dies with the run's process. Never a vendor key. */
  token: string;
  /** The model name the program asks for; the gateway routes it to the agent's model whatever it says. */
  model: string;
}

/** A host folder or file the program needs, seen read-only at `at` inside the sandbox. */
export interface ProgramBind {
  host: string;
  at: string;
}

export interface HostedProgram {
  id: string;
  /** The npm package an admin installs it from (docs/hosted-agents.md#installing-a-program); absent: it comes with Rein. */
  package?: ProgramPackage;
  /** The protocols its model calls use through the gateway. */
  speaks: Array<"openai-chat" | "openai-responses" | "anthropic">;
  /** Whether it reloads a session after a restart of Rein (session/load), as far as Rein knows before it starts. */
  loadsSessions: boolean;
  /**
   * It runs its commands itself with `bash -c` rather than in ACP terminals: in a run with a pod, Rein's shell relay
   * runs them at the pod's prompt instead (docs/hosted-agents.md#commands-in-the-terminal-tab).
   */
  relaysShell?: boolean;
  /** What people see, e.g. "Claude Code". */
  name: string;
  description: string;
  /** Where the program's files are, or why it cannot run here. */
  install(): { binds: ProgramBind[] } | { missing: string };
  /** The command inside the sandbox; argv[0] "node" is Rein's own Node. */
  argv: string[];
  /** Variables the program reads to find its model (the gateway) and keep to itself. */
  env(gateway: GatewayEndpoint): Record<string, string>;
}

/** Where the program's files are inside the sandbox. */
export const PROGRAM_ROOT = "/opt/rein";

function packageDir(name: string): string | null {
  const dir = path.join(process.cwd(), "node_modules", name);
  return fs.existsSync(path.join(dir, "package.json")) ? dir : null;
}

/** The packages every program built on the ACP SDK imports, bound where Node's resolution finds them. */
function sdkBinds(): ProgramBind[] | string {
  const binds: ProgramBind[] = [];
  for (const name of ["@agentclientprotocol/sdk", "zod"]) {
    const dir = packageDir(name);
    if (!dir) return `the package ${name} is not installed (npm install)`;
    binds.push({ host: dir, at: path.posix.join(PROGRAM_ROOT, "node_modules", name) });
  }
  return binds;
}

/**
 * Rein's own ACP agent: a small model-driven coding agent on the official SDK
 * that uses every method Rein answers (files, terminals, permissions, plans,
 * session/load). Tests and the hosted-agent demo use it.
 */
export const TEST_AGENT: HostedProgram = {
  id: "rein-test-agent",
  speaks: ["openai-chat"],
  loadsSessions: true,
  name: "Rein test agent",
  description: "A small coding agent on the ACP SDK that uses Rein's files, terminal and permission prompts; for trying hosted agents.",
  install() {
    const file = path.join(process.cwd(), "test", "helpers", "acp-agent", "agent.mjs");
    if (!fs.existsSync(file)) return { missing: "its program file is not in this installation" };
    const sdk = sdkBinds();
    if (typeof sdk === "string") return { missing: sdk };
    return { binds: [{ host: file, at: path.posix.join(PROGRAM_ROOT, "agent", "agent.mjs") }, ...sdk] };
  },
  argv: ["node", path.posix.join(PROGRAM_ROOT, "agent", "agent.mjs")],
  env: (g) => ({
    OPENAI_BASE_URL: `${g.origin}/v1`,
    OPENAI_API_KEY: g.token,
    ACP_TEST_AGENT_MODEL: g.model,
    ACP_TEST_AGENT_STATE: "/home/agent/sessions",
  }),
};

/** A program installed from npm: its install folder's node_modules, read-only, and its entry file run with Rein's Node. */
function fromPackage(pkg: ProgramPackage, entry: string, args: string[] = []): Pick<HostedProgram, "install" | "argv" | "package"> {
  return {
    package: pkg,
    install() {
      if (!installedPackage(pkg))
        return { missing: `${pkg.name}@${pkg.version} is not installed (Settings › Hosted agents, or rein hosted install)` };
      return { binds: [{ host: path.join(packageFolder(pkg), "node_modules"), at: path.posix.join(PROGRAM_ROOT, "node_modules") }] };
    },
    argv: ["node", path.posix.join(PROGRAM_ROOT, "node_modules", pkg.name, entry), ...args],
  };
}

/** Claude Code through Zed's ACP adapter, pointed at the gateway's Anthropic Messages API. */
const CLAUDE_CODE: HostedProgram = {
  id: "claude-code",
  name: "Claude Code",
  description: "Anthropic's coding agent, through its ACP adapter; its model calls go to Rein's gateway as Anthropic Messages.",
  speaks: ["anthropic"],
  loadsSessions: true,
  ...fromPackage(
    {
      name: "@zed-industries/claude-code-acp",
      version: "0.16.2",
      integrity: "sha512-D8BJe6CCD49RtNFbZYPsfZOpQI8Z/EzhyYC9zAGMwN/HVunEtVY2sXqYl1iDSkkayzhqABfaDkDZfeqDM1T/aA==",
    },
    "dist/index.js",
  ),
  env: (g) => ({
    ANTHROPIC_BASE_URL: g.origin,
    ANTHROPIC_AUTH_TOKEN: g.token,
    ANTHROPIC_MODEL: g.model,
    CLAUDE_CONFIG_DIR: "/home/agent/.claude",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
  }),
};

/** Qwen Code in its ACP mode, pointed at the gateway's OpenAI Chat Completions API. */
const QWEN_CODE: HostedProgram = {
  id: "qwen-code",
  name: "Qwen Code",
  description: "Qwen's coding agent in its ACP mode; its model calls go to Rein's gateway as OpenAI Chat Completions.",
  speaks: ["openai-chat"],
  loadsSessions: true,
  relaysShell: true,
  ...fromPackage(
    {
      name: "@qwen-code/qwen-code",
      version: "0.24.4",
      integrity: "sha512-pmexy/Nj+BKd3Un1ogqGQE8V4GJn5B6N9PQOrU1GH+lMR29kn6Bgf6YdbZa8hNIoTmAKT1LTPK+P8TibZRPPVg==",
      omitOptional: true,
    },
    "cli-entry.js",
    // Its own approval mode stays "default": every edit and command is asked of Rein, whose policy decides. Safe mode
    // ignores what a workspace's .qwen/settings.json could add past Rein (permission rules, hooks, MCP servers) and its
    // memory's extra model calls (docs/hosted-agents.md#qwen-code).
    ["--acp", "--auth-type", "openai", "--approval-mode", "default", "--safe-mode"],
  ),
  env: (g) => ({
    OPENAI_BASE_URL: `${g.origin}/v1`,
    OPENAI_API_KEY: g.token,
    OPENAI_MODEL: g.model,
    QWEN_TELEMETRY_ENABLED: "0",
    QWEN_USAGE_STATISTICS_ENABLED: "0",
  }),
};

const PROGRAMS = new Map<string, HostedProgram>([TEST_AGENT, CLAUDE_CODE, QWEN_CODE].map((p) => [p.id, p]));

/** Adds a program to the catalog (tests; a program an admin describes by its command is planned). */
export function registerHostedProgram(program: HostedProgram): () => void {
  PROGRAMS.set(program.id, program);
  return () => void PROGRAMS.delete(program.id);
}

export function hostedProgram(id: string): HostedProgram | undefined {
  return PROGRAMS.get(id);
}

export function hostedPrograms(): HostedProgram[] {
  return [...PROGRAMS.values()];
}
