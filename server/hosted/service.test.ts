// The hosted programs' service (docs/hosted-agents.md#the-programs): the list
// with each program's state and the agents each caller may see using it,
// installs only admins start (one at a time, in the background, audited), and
// a test that starts a program in a throwaway sandbox: Rein's test agent
// answers initialize; a program that exits or stays silent is said so in words.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { agentDepsOf, createAgent, setArchived } from "@/server/agents";
import { DomainError } from "@/server/errors";
import { createUser, loadActor, type Actor } from "@/server/identity";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { registerHostedProgram, type HostedProgram, type ProgramPackage } from "./index";
import { HostedPrograms } from "./service";

let tk: TestKernel;
let otherTeamAdminAgent: string;
let otherOperator: Actor;
const unregister: Array<() => void> = [];

const hostedSpec = (name: string, teamId: string | null) => ({
  name,
  instructions: "Work in /workspace.",
  model: "scripted/demo-hosted",
  tools: [],
  handoffs: [],
  teamId,
  hosted: { program: "rein-test-agent" },
});

/** A program of the test's own, started with Rein's Node and a script. */
function scriptProgram(id: string, script: string, pkg?: ProgramPackage, installed = () => true): HostedProgram {
  return {
    id,
    name: `Program ${id}`,
    description: "A program of this test.",
    speaks: ["openai-chat"],
    loadsSessions: false,
    ...(pkg ? { package: pkg } : {}),
    install: () => (installed() ? { binds: [] } : { missing: `${id} is not installed` }),
    argv: ["node", "-e", script],
    env: () => ({}),
  };
}

async function refusal(p: Promise<unknown>): Promise<DomainError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  return err as DomainError;
}

/** This file's own folder for Tests' throwaway sandboxes: other test files test programs at the same time. */
const scratchDir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-hosted-service-"));
const testDirs = () => fs.readdirSync(scratchDir).filter((n) => n.startsWith("rein-hosted-test-")).length;

beforeAll(async () => {
  tk = await createTestKernel();
  const deps = agentDepsOf(tk.kernel);
  const otherId = await createUser(tk.t.db, { email: "other@test.local", password: "test-password-1", role: "operator", teams: ["other"] });
  otherOperator = (await loadActor(tk.t.db, otherId))!;
  await createAgent(deps, { actor: tk.actors.admin, channel: "admin" }, hostedSpec("team-hosted", tk.actors.operator.teamIds[0]));
  otherTeamAdminAgent = "other-hosted";
  await createAgent(deps, { actor: tk.actors.admin, channel: "admin" }, hostedSpec(otherTeamAdminAgent, otherOperator.teamIds[0]));
  await createAgent(deps, { actor: tk.actors.admin, channel: "admin" }, hostedSpec("gone-hosted", null));
  await setArchived(deps, { actor: tk.actors.admin, channel: "admin" }, "gone-hosted", true);
});

afterEach(() => {
  while (unregister.length) unregister.pop()!();
});

afterAll(async () => {
  await tk?.cleanup();
  fs.rmSync(scratchDir, { recursive: true, force: true });
});

describe("the list of hosted programs", () => {
  it("says of each program whether it can run here, what it is pinned to and speaks, and which visible agents use it", async () => {
    const hosted = new HostedPrograms({ db: tk.t.db, scratchDir });
    const pkg = { name: "@example/absent", version: "0.1.0", integrity: "sha512-x" };
    unregister.push(registerHostedProgram(scriptProgram("absent", "", pkg, () => false)));
    const { programs } = await hosted.list(tk.actors.operator);
    const test = programs.find((p) => p.id === "rein-test-agent")!;
    expect(test).toMatchObject({
      name: "Rein test agent",
      package: null,
      installed: true,
      notInstalledReason: null,
      protocols: [{ id: "openai-chat", name: "OpenAI Chat Completions" }],
      loadsSessions: true,
      install: null,
    });
    // Its own team's agent and the built-in demo; not another team's, not an archived one.
    expect(test.agents).toEqual(["demo-hosted", "team-hosted"]);
    const claude = programs.find((p) => p.id === "claude-code")!;
    expect(claude.package).toEqual({ name: "@zed-industries/claude-code-acp", version: expect.any(String) });
    expect(claude.protocols.map((p) => p.name)).toEqual(["Anthropic Messages"]);
    expect(claude.agents).toEqual([]);
    expect(programs.find((p) => p.id === "absent")).toMatchObject({
      package: { name: "@example/absent", version: "0.1.0" },
      installed: false,
      notInstalledReason: "absent is not installed",
      loadsSessions: false,
    });
  });

  it("shows an admin every team's agents, and the other team's operator theirs", async () => {
    const hosted = new HostedPrograms({ db: tk.t.db, scratchDir });
    const agentsOf = async (actor: Actor) => (await hosted.list(actor)).programs.find((p) => p.id === "rein-test-agent")!.agents;
    expect(await agentsOf(tk.actors.admin)).toEqual(["demo-hosted", otherTeamAdminAgent, "team-hosted"]);
    expect(await agentsOf(otherOperator)).toEqual(["demo-hosted", otherTeamAdminAgent]);
  });

  it("names the program a run's agent version runs, and none for Rein's own loop", async () => {
    const hosted = new HostedPrograms({ db: tk.t.db, scratchDir });
    const demo = await tk.t.db.agentSpec.findFirstOrThrow({ where: { name: "demo-hosted" }, select: { version: true } });
    expect(await hosted.programOf("demo-hosted", demo.version)).toEqual({ id: "rein-test-agent", name: "Rein test agent" });
    expect(await hosted.programOf("demo-coder", 1)).toBeNull();
    expect(await hosted.programOf("nobody", 1)).toBeNull();
  });
});

describe("installing a program", () => {
  const pkg: ProgramPackage = { name: "@example/agent", version: "1.2.3", integrity: "sha512-x" };

  it("is refused to everyone but admins, and nothing is installed or audited", async () => {
    let calls = 0;
    const hosted = new HostedPrograms({ db: tk.t.db, scratchDir, install: async () => (calls++, "") });
    unregister.push(registerHostedProgram(scriptProgram("for-admins", "", pkg, () => false)));
    for (const role of ["operator", "approver", "viewer"] as const) {
      const err = await refusal(hosted.install(tk.actors[role], "for-admins"));
      expect(err.code).toBe("FORBIDDEN");
      expect(err.message).toMatch(/needs the admin role/);
    }
    expect(calls).toBe(0);
    expect(await tk.t.db.auditEntry.count({ where: { subject: "hosted:for-admins" } })).toBe(0);
  });

  it("runs in the background, one at a time, and its state and audit rows say how it went", async () => {
    let installed = false;
    let finish!: () => void;
    let calls = 0;
    const hosted = new HostedPrograms({
      db: tk.t.db,
      scratchDir,
      install: (given) => {
        calls++;
        expect(given).toEqual(pkg);
        return new Promise((resolve) => (finish = () => ((installed = true), resolve("dir"))));
      },
    });
    unregister.push(registerHostedProgram(scriptProgram("slow-install", "", pkg, () => installed)));
    const started = await hosted.install(tk.actors.admin, "slow-install");
    expect(started.installed).toBe(false);
    expect(started.install).toMatchObject({ state: "installing", message: "Installing @example/agent@1.2.3 with npm…", by: "admin" });
    // Asking again while it runs joins that install.
    expect((await hosted.install(tk.actors.admin, "slow-install")).install?.state).toBe("installing");
    expect(calls).toBe(1);
    finish();
    await hosted.settled("slow-install");
    const done = await hosted.get(tk.actors.operator, "slow-install");
    expect(done).toMatchObject({ installed: true, install: { state: "installed", message: "Installed @example/agent@1.2.3" } });
    expect(done.install?.endedAt).not.toBeNull();
    // Installed: asking again installs nothing.
    await hosted.install(tk.actors.admin, "slow-install");
    expect(calls).toBe(1);
    const audit = await tk.t.db.auditEntry.findMany({ where: { subject: "hosted:slow-install" }, orderBy: { id: "asc" } });
    expect(audit.map((a) => [a.kind, a.toState, a.actorName, a.channel])).toEqual([
      ["hosted.program.install_started", "installing", "admin", "admin"],
      ["hosted.program.installed", "installed", "admin", "admin"],
    ]);
  });

  it("says why an install failed, and may be tried again", async () => {
    let attempt = 0;
    const hosted = new HostedPrograms({
      db: tk.t.db,
      scratchDir,
      install: async () => {
        attempt++;
        throw new Error("npm install failed (exit code 1): E404 Not Found");
      },
    });
    unregister.push(registerHostedProgram(scriptProgram("broken-install", "", pkg, () => false)));
    await hosted.install(tk.actors.admin, "broken-install", "cli");
    await hosted.settled();
    const failed = await hosted.get(tk.actors.admin, "broken-install");
    expect(failed.installed).toBe(false);
    expect(failed.install).toMatchObject({
      state: "failed",
      message: "The install of @example/agent@1.2.3 failed: npm install failed (exit code 1): E404 Not Found",
    });
    const last = await tk.t.db.auditEntry.findFirstOrThrow({ where: { subject: "hosted:broken-install" }, orderBy: { id: "desc" } });
    expect([last.kind, last.toState, last.channel]).toEqual(["hosted.program.install_failed", "failed", "cli"]);
    expect(JSON.parse(last.detail)).toMatchObject({ error: expect.stringMatching(/E404/) });
    await hosted.install(tk.actors.admin, "broken-install");
    await hosted.settled();
    expect(attempt).toBe(2);
  });

  it("refuses a program that comes with Rein and one Rein does not have", async () => {
    const hosted = new HostedPrograms({ db: tk.t.db, scratchDir, install: async () => "" });
    const bundled = await refusal(hosted.install(tk.actors.admin, "rein-test-agent"));
    expect([bundled.code, bundled.message]).toEqual(["CONFLICT", "Rein test agent comes with Rein; there is nothing to install"]);
    const unknown = await refusal(hosted.install(tk.actors.admin, "no-such-program"));
    expect(unknown.code).toBe("NOT_FOUND");
    expect(unknown.message).toMatch(/has no hosted program "no-such-program"; it has rein-test-agent, /);
  });
});

describe("testing a program", () => {
  it("starts Rein's test agent in the sandbox and reports what it answered to initialize; nothing is left behind", async () => {
    const hosted = new HostedPrograms({ db: tk.t.db, scratchDir });
    const before = testDirs();
    const result = await hosted.test(tk.actors.admin, "rein-test-agent");
    expect(result).toMatchObject({
      program: "rein-test-agent",
      ok: true,
      agent: { name: "rein-test-agent", version: "1.0.0" },
      protocolVersion: 1,
      loadsSessions: true,
      authMethods: [],
    });
    expect(result.summary).toBe(
      "Rein test agent answered as rein-test-agent 1.0.0, protocol version 1; it can reload a session (session/load); it asks for no sign-in.",
    );
    expect(testDirs()).toBe(before);
  });

  it("is for admins only", async () => {
    const hosted = new HostedPrograms({ db: tk.t.db, scratchDir });
    expect((await refusal(hosted.test(tk.actors.operator, "rein-test-agent"))).code).toBe("FORBIDDEN");
  });

  it("says a program is not installed without starting anything", async () => {
    const hosted = new HostedPrograms({ db: tk.t.db, scratchDir });
    unregister.push(registerHostedProgram(scriptProgram("absent", "throw new Error('started')", undefined, () => false)));
    const before = testDirs();
    const result = await hosted.test(tk.actors.admin, "absent");
    expect(result).toMatchObject({ ok: false, summary: "Program absent cannot start here: absent is not installed" });
    expect(testDirs()).toBe(before);
  });

  it("says how a program that exits went, with the last line it wrote", async () => {
    const hosted = new HostedPrograms({ db: tk.t.db, scratchDir });
    unregister.push(registerHostedProgram(scriptProgram("quits", "process.stderr.write('no model configured\\n'); process.exit(3)")));
    const result = await hosted.test(tk.actors.admin, "quits");
    expect(result).toMatchObject({
      ok: false,
      agent: null,
      summary: "Program quits exited with code 3 before it answered: no model configured",
    });
  });

  it("stops a program that does not answer in time, and says so", async () => {
    const hosted = new HostedPrograms({ db: tk.t.db, scratchDir, testTimeoutMs: 1000 });
    unregister.push(registerHostedProgram(scriptProgram("silent", "process.stderr.write('thinking\\n'); setInterval(() => {}, 1000)")));
    const before = testDirs();
    const result = await hosted.test(tk.actors.admin, "silent");
    expect(result).toMatchObject({ ok: false, summary: "Program silent did not answer within 1 s; it last wrote: thinking" });
    expect(testDirs()).toBe(before);
  });
});
