// Settings › Hosted agents, `rein hosted` and /api/v1/hosted-programs
// (docs/hosted-agents.md#the-programs): the programs Rein can host, whether
// each is installed here, which agents use it, an admin's install running in
// the background, and a test that starts the program in a throwaway sandbox
// and asks it the protocol's first question.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { recordAudit } from "@/server/audit";
import type { Db } from "@/server/db";
import { DomainError } from "@/server/errors";
import type { Actor } from "@/server/identity";
import { agentVisibleTo } from "@/server/kernel";
import { AcpHost, AgentExitedError, type HostIO } from "./acp-host";
import { installProgram, type ProgramPackage } from "./install";
import { hostedProgram, hostedPrograms, type HostedProgram } from "./programs";
import { runFolders, startAgentProcess } from "./sandbox";

/** What people read for each protocol a program's model calls use. */
export const PROTOCOL_NAMES: Record<HostedProgram["speaks"][number], string> = {
  "openai-chat": "OpenAI Chat Completions",
  "openai-responses": "OpenAI Responses",
  anthropic: "Anthropic Messages",
};

/** How long a test waits for the program's answer to initialize. */
export const TEST_TIMEOUT_MS = 20_000;

export type InstallState = "installing" | "installed" | "failed";

export interface InstallView {
  state: InstallState;
  /** Where it stands, in words. */
  message: string;
  by: string;
  startedAt: string;
  endedAt: string | null;
}

export interface HostedProgramView {
  id: string;
  name: string;
  description: string;
  /** The pinned npm package; null: it comes with Rein. */
  package: { name: string; version: string } | null;
  installed: boolean;
  /** Why it cannot run here, in words; null when it can. */
  notInstalledReason: string | null;
  protocols: Array<{ id: string; name: string }>;
  /** It reloads its session after a restart of Rein (session/load). */
  loadsSessions: boolean;
  /** How its commands reach the pod's prompt: ACP terminals, or its own `bash -c` through the shell relay (docs/hosted-agents.md#commands-in-the-terminal-tab). */
  commands: "terminal" | "relay";
  /** The agents the caller may see whose latest version runs this program. */
  agents: string[];
  /** The latest install this server ran since it started, if any. */
  install: InstallView | null;
}

export interface HostedProgramTest {
  program: string;
  ok: boolean;
  /** What it answered, or why it did not, in words. */
  summary: string;
  agent: { name: string; version: string | null } | null;
  protocolVersion: number | null;
  loadsSessions: boolean | null;
  authMethods: string[];
  tookMs: number;
}

export interface HostedProgramsDeps {
  db: Db;
  log?: { info(m: string): void; error(m: string, e?: unknown): void };
  /** npm's install (tests pass a fake). */
  install?: (pkg: ProgramPackage, log: { info(m: string): void }) => Promise<string>;
  testTimeoutMs?: number;
  /** Where a Test's throwaway sandbox folders go (default: the system's temporary folder). */
  scratchDir?: string;
}

interface Install {
  view: InstallView;
  done: Promise<void>;
}

const SILENT = { info() {}, error() {} };

export class HostedPrograms {
  private readonly installs = new Map<string, Install>();
  private readonly log: NonNullable<HostedProgramsDeps["log"]>;

  constructor(private readonly deps: HostedProgramsDeps) {
    this.log = deps.log ?? SILENT;
  }

  async list(actor: Actor): Promise<{ programs: HostedProgramView[] }> {
    const users = await this.agentsByProgram(actor);
    return { programs: hostedPrograms().map((p) => this.view(p, users.get(p.id) ?? [])) };
  }

  async get(actor: Actor, id: string): Promise<HostedProgramView> {
    const program = programNamed(id);
    return this.view(program, (await this.agentsByProgram(actor)).get(id) ?? []);
  }

  /**
   * Starts installing the program's pinned package in the background and
   * returns at once; one install per program at a time (asking again while one
   * runs returns that one). list/get show how it goes.
   */
  async install(actor: Actor, id: string, channel = "admin"): Promise<HostedProgramView> {
    requireAdmin(actor, "Installing a hosted program");
    const program = programNamed(id);
    const pkg = program.package;
    if (!pkg) throw new DomainError("CONFLICT", `${program.name} comes with Rein; there is nothing to install`);
    const running = this.installs.get(id);
    if (running?.view.state === "installing" || !("missing" in program.install())) return this.get(actor, id);
    const label = `${pkg.name}@${pkg.version}`;
    const view: InstallView = {
      state: "installing",
      message: `Installing ${label} with npm…`,
      by: actor.name,
      startedAt: new Date().toISOString(),
      endedAt: null,
    };
    await this.audit(actor, channel, "hosted.program.install_started", program, "not installed", "installing", { package: label });
    const install = this.deps.install ?? installProgram;
    const done = install(pkg, { info: () => {} }).then(
      async () => {
        Object.assign(view, { state: "installed", message: `Installed ${label}`, endedAt: new Date().toISOString() });
        await this.audit(actor, channel, "hosted.program.installed", program, "installing", "installed", { package: label });
      },
      async (err: unknown) => {
        const why = err instanceof Error ? err.message : String(err);
        Object.assign(view, { state: "failed", message: `The install of ${label} failed: ${why}`, endedAt: new Date().toISOString() });
        await this.audit(actor, channel, "hosted.program.install_failed", program, "installing", "failed", { package: label, error: why });
      },
    );
    const entry: Install = { view, done: done.catch((err) => this.log.error(`the install of ${label} was not recorded`, err)) };
    this.installs.set(id, entry);
    return this.get(actor, id);
  }

  /** Resolves when the program's install (if one runs) has ended: tests, and a clean stop. */
  async settled(id?: string): Promise<void> {
    await Promise.all([...this.installs].filter(([key]) => id === undefined || key === id).map(([, i]) => i.done));
  }

  /**
   * Starts the program in a throwaway workspace in the sandbox, with a gateway
   * bound to nothing, asks it `initialize`, and says what it answered. The
   * process is always stopped and the folder removed.
   */
  async test(actor: Actor, id: string): Promise<HostedProgramTest> {
    requireAdmin(actor, "Testing a hosted program");
    const program = programNamed(id);
    const started = Date.now();
    const result = (r: Omit<HostedProgramTest, "program" | "tookMs">): HostedProgramTest => ({
      program: program.id,
      ...r,
      tookMs: Date.now() - started,
    });
    const failed = (summary: string) =>
      result({ ok: false, summary, agent: null, protocolVersion: null, loadsSessions: null, authMethods: [] });
    const installed = program.install();
    if ("missing" in installed) return failed(`${program.name} cannot start here: ${installed.missing}`);
    const dir = fs.mkdtempSync(path.join(this.deps.scratchDir ?? os.tmpdir(), "rein-hosted-test-"));
    let host: AcpHost | null = null;
    const timeoutMs = this.deps.testTimeoutMs ?? TEST_TIMEOUT_MS;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new TestTimeout()), timeoutMs);
    try {
      const workspaceDir = path.join(dir, "workspace");
      fs.mkdirSync(workspaceDir, { mode: 0o700 });
      const runDir = path.join(dir, "run");
      // Nothing listens here: a test makes no model call, and one it tried would find no gateway.
      const { socket } = runFolders(runDir);
      fs.writeFileSync(socket, "");
      const child = startAgentProcess({ program, workspaceDir, runDir, gatewaySocket: socket, gateway: { token: "test", model: "test" } });
      host = new AcpHost(child, NO_IO, this.log);
      const answer = await host.initialize(abort.signal);
      return result({ ok: true, ...describeAnswer(program, answer) });
    } catch (err) {
      if (err instanceof TestTimeout) {
        const last = host ? await lastWords(host) : "";
        return failed(`${program.name} did not answer within ${Math.round(timeoutMs / 1000)} s${last ? `; it last wrote: ${last}` : ""}`);
      }
      if (err instanceof AgentExitedError) return failed(exitWords(program, err.exit));
      // The protocol's stream may close a moment before the process's exit is seen: say how it exited.
      const exit = host ? await Promise.race([host.exited, new Promise<null>((r) => setTimeout(() => r(null), 2000).unref())]) : null;
      if (exit) return failed(exitWords(program, exit));
      return failed(`${program.name} could not start: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      clearTimeout(timer);
      await host?.close().catch(() => {});
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  /** The program an agent spec version runs, for the run page's badge; null for Rein's own loop. */
  async programOf(agentName: string, agentVersion: number): Promise<{ id: string; name: string } | null> {
    const row = await this.deps.db.agentSpec.findUnique({
      where: { name_version: { name: agentName, version: agentVersion } },
      select: { guardrails: true },
    });
    const id = row ? programIdOf(row.guardrails) : null;
    if (!id) return null;
    return { id, name: hostedProgram(id)?.name ?? id };
  }

  private view(program: HostedProgram, agents: string[]): HostedProgramView {
    const where = program.install();
    return {
      id: program.id,
      name: program.name,
      description: program.description,
      package: program.package ? { name: program.package.name, version: program.package.version } : null,
      installed: !("missing" in where),
      notInstalledReason: "missing" in where ? where.missing : null,
      protocols: program.speaks.map((id) => ({ id, name: PROTOCOL_NAMES[id] ?? id })),
      loadsSessions: program.loadsSessions,
      commands: program.relaysShell ? "relay" : "terminal",
      agents,
      install: this.installs.get(program.id)?.view ?? null,
    };
  }

  /** Program id → the names of the agents the actor sees (not archived) whose latest saved version runs it. */
  private async agentsByProgram(actor: Actor): Promise<Map<string, string[]>> {
    const { db } = this.deps;
    const newest = await db.agentSpec.groupBy({ by: ["name"], where: { draft: false, version: { gt: 0 } }, _max: { version: true } });
    if (!newest.length) return new Map();
    const rows = await db.agentSpec.findMany({
      where: { OR: newest.map((n) => ({ name: n.name, version: n._max.version! })), guardrails: { contains: "hosted" } },
      select: { name: true, guardrails: true },
      orderBy: { name: "asc" },
    });
    const agents = new Map(
      (
        await db.agent.findMany({
          where: { name: { in: rows.map((r) => r.name) } },
          select: { name: true, teamId: true, archivedAt: true },
        })
      ).map((a) => [a.name, a]),
    );
    const out = new Map<string, string[]>();
    for (const row of rows) {
      const agent = agents.get(row.name) ?? null;
      if (agent?.archivedAt || !agentVisibleTo(agent, actor)) continue;
      const id = programIdOf(row.guardrails);
      if (id) out.set(id, [...(out.get(id) ?? []), row.name]);
    }
    return out;
  }

  private async audit(
    actor: Actor,
    channel: string,
    kind: string,
    program: HostedProgram,
    fromState: string,
    toState: string,
    detail: Record<string, unknown>,
  ) {
    await recordAudit(this.deps.db, {
      kind,
      actorId: actor.userId,
      actorName: actor.name,
      channel,
      subject: `hosted:${program.id}`,
      fromState,
      toState,
      detail,
    });
  }
}

class TestTimeout extends Error {}

function requireAdmin(actor: Actor, what: string) {
  if (actor.role !== "admin") throw new DomainError("FORBIDDEN", `${what} needs the admin role; you are ${actor.role}`);
}

function programNamed(id: string): HostedProgram {
  const program = hostedProgram(id);
  if (!program)
    throw new DomainError(
      "NOT_FOUND",
      `Rein has no hosted program "${id.slice(0, 100)}"; it has ${hostedPrograms()
        .map((p) => p.id)
        .join(", ")}`,
    );
  return program;
}

/** The stored guardrails JSON's hosted.program (server/kernel/specs.ts keeps it there). */
function programIdOf(guardrails: string): string | null {
  try {
    const hosted = (JSON.parse(guardrails) as { hosted?: { program?: unknown } }).hosted;
    return typeof hosted?.program === "string" ? hosted.program : null;
  } catch {
    return null;
  }
}

function describeAnswer(program: HostedProgram, answer: acp.InitializeResponse) {
  const info = answer.agentInfo ?? null;
  const agent = info ? { name: info.title || info.name, version: info.version || null } : null;
  const loadsSessions = answer.agentCapabilities?.loadSession === true;
  const authMethods = (answer.authMethods ?? []).map((m) => ("name" in m && typeof m.name === "string" ? m.name : String(m.id)));
  const who = agent ? `${agent.name}${agent.version ? ` ${agent.version}` : ""}` : "an agent that did not give its name";
  const sessions = loadsSessions ? "it can reload a session (session/load)" : "it cannot reload a session";
  const logins = authMethods.length
    ? `it offers ${authMethods.length === 1 ? "a sign-in method" : "sign-in methods"} (${authMethods.join(", ")}), which Rein does not use: its model calls go through Rein's gateway`
    : "it asks for no sign-in";
  return {
    summary: `${program.name} answered as ${who}, protocol version ${answer.protocolVersion}; ${sessions}; ${logins}.`,
    agent,
    protocolVersion: answer.protocolVersion,
    loadsSessions,
    authMethods,
  };
}

function exitWords(program: HostedProgram, exit: { code: number | null; signal: string | null; stderr: string }): string {
  const how = exit.signal ? `was stopped by ${exit.signal}` : `exited with code ${exit.code}`;
  const last = exit.stderr.split("\n").filter(Boolean).pop();
  return `${program.name} ${how} before it answered${last ? `: ${last.slice(0, 500)}` : ""}`;
}

/** The last line the program wrote to its error output, once it is stopped. */
async function lastWords(host: AcpHost): Promise<string> {
  await host.close().catch(() => {});
  const { stderr } = await host.exited;
  return (stderr.split("\n").filter(Boolean).pop() ?? "").slice(0, 500);
}

/** A test offers the program nothing: no files, no terminal, no permission. */
const NO_IO: HostIO = {
  readText: async () => {
    throw new Error("a test has no files");
  },
  writeText: async () => {
    throw new Error("a test has no files");
  },
  exec: null,
  permission: async () => ({ outcome: { outcome: "cancelled" } }),
  allow: async () => {
    throw new Error("a test allows nothing");
  },
  update: async () => {},
};
