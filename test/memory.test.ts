// Memory (issue "Memory"): scope (another team's memories never load),
// the confirmation flow, the prompt budget, search ranking on a small corpus,
// and the episode written when a run ends.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun } from "@/server/kernel";
import { createTeam, createUser, loadActor, type Actor } from "@/server/identity";
import { countTokens } from "@/server/models";
import { MemoryStore, memoriesFor, memoryTools, startMemoryListener, writeEpisode, createRunMemory, type NewMemory } from "@/server/memory";
import type { ToolContext, ToolDefinition } from "@/server/tools";
import { createTestKernel, type TestKernel } from "./helpers/kernel";
import { waitFor } from "./helpers/wait";

let tk: TestKernel;
let store: MemoryStore;
let teamA: string;
let teamB: string;
let outsider: Actor;
let listener: ReturnType<typeof startMemoryListener>;

beforeAll(async () => {
  tk = await createTestKernel({ hitl: true });
  store = new MemoryStore({ db: tk.t.db });
  teamA = tk.actors.operator.teamIds[0];
  teamB = (await createTeam(tk.t.db, { actor: tk.actors.admin, channel: "test" }, "Other team")).id;
  outsider = (await loadActor(
    tk.t.db,
    await createUser(tk.t.db, { email: "other@test.local", password: "test-password-1", role: "operator", teams: ["Other team"] }),
  ))!;
  listener = startMemoryListener({ db: tk.t.db, bus: tk.kernel.bus, store });
}, 60_000);
afterAll(async () => {
  listener?.stop();
  await tk?.cleanup();
});

const base = (over: Partial<NewMemory>): NewMemory => ({
  scope: "team",
  kind: "fact",
  title: "",
  text: "x",
  agentName: "demo-coder",
  teamId: teamA,
  createdBy: "agent:demo-coder",
  ...over,
});

async function runRow(teamId: string | null, createdById = tk.users.operator) {
  return tk.t.db.run.create({
    data: { goal: "A test run", agentName: "demo-coder", agentVersion: 1, teamId, createdById, status: "running", model: "scripted/x" },
  });
}

function ctxFor(runId: string, toolCallId: string, agent = "demo-coder"): ToolContext {
  return {
    runId,
    toolCallId,
    agent: { name: agent, handoffs: [] },
    actorId: tk.users.operator,
    signal: new AbortController().signal,
  } as unknown as ToolContext;
}

const tool = (tools: ToolDefinition[], name: string) => tools.find((t) => t.name === name)!;

describe("scope", () => {
  it("another team's memories never load, never come back from recall and never show in search", async () => {
    await store.create(base({ text: "The staging database password rotates every Monday", title: "Staging rotation" }));
    await store.create(base({ teamId: teamB, text: "The staging database of team B lives on host beta", title: "Team B staging" }));
    await store.create(
      base({ teamId: null, ownerId: tk.users.operator, text: "Personal staging notes without a team", title: "No team staging" }),
    );
    await store.create(base({ scope: "agent", agentName: "demo-writer", text: "Staging is for writers only", title: "Writer staging" }));

    const recalled = await store.recall("staging database", { agentName: "demo-coder", teamId: teamA, ownerId: tk.users.operator });
    expect(recalled.map((m) => m.title)).toEqual(["Staging rotation"]);

    const loaded = await memoriesFor(store, {
      agentName: "demo-coder",
      teamId: teamA,
      ownerId: tk.users.operator,
      goal: "fix the staging database",
      budgetTokens: 1500,
    });
    expect(loaded.loaded.map((m) => m.title)).toEqual(["Staging rotation"]);
    expect(loaded.text).not.toMatch(/team B|writers|without a team/);

    // A team-less run sees only its launcher's team-less memories, never a team's.
    const teamless = await store.recall("staging", { agentName: "demo-coder", teamId: null, ownerId: tk.users.operator });
    expect(teamless.map((m) => m.title)).toEqual(["No team staging"]);
    expect(await store.recall("staging", { agentName: "demo-coder", teamId: null, ownerId: tk.users.viewer })).toEqual([]);

    const seenByOutsider = await store.list(outsider, { q: "staging" });
    expect(seenByOutsider.items.map((m) => m.title)).toEqual(["Team B staging"]);
    expect((await store.list(outsider, {})).items.every((m) => m.teamId === teamB)).toBe(true);
    const seenByOperator = await store.list(tk.actors.operator, { q: "staging" });
    expect(seenByOperator.items.map((m) => m.title).sort()).toEqual(["No team staging", "Staging rotation", "Writer staging"]);
    // The tool answers for its run's team only.
    const run = await runRow(teamB, outsider.userId);
    const out = (await tool(memoryTools(store, { db: tk.t.db }), "recall").execute({ query: "staging" }, ctxFor(run.id, "c1"))) as {
      memories: Array<{ title: string }>;
    };
    expect(out.memories.map((m) => m.title)).toEqual(["Team B staging"]);
  });
});

describe("remember", () => {
  it("saves once per call, redacts secrets, and refuses bad input with a clear error", async () => {
    const run = await runRow(teamA);
    const tools = memoryTools(store, { db: tk.t.db, redactor: { text: (s) => s.replaceAll("hunter2-value", "[secret:PW]") } });
    const remember = tool(tools, "remember");
    const args = remember.args.parse({ text: "Log in with hunter2-value then run make deploy", kind: "procedure", scope: "agent" });
    const first = (await remember.execute(args, ctxFor(run.id, "call-1"))) as { id: string; state: string; redacted?: boolean };
    const again = (await remember.execute(args, ctxFor(run.id, "call-1"))) as { id: string };
    expect(again.id).toBe(first.id);
    expect(first.state).toBe("active");
    expect(first.redacted).toBe(true);
    expect(await tk.t.db.memory.count({ where: { sourceRunId: run.id } })).toBe(1);
    const row = await tk.t.db.memory.findUniqueOrThrow({ where: { id: first.id } });
    expect(row.text).toBe("Log in with [secret:PW] then run make deploy");
    expect(row.createdBy).toBe("agent:demo-coder");
    expect(remember.args.safeParse({ text: "x".repeat(2001), kind: "fact", scope: "agent" }).success).toBe(false);
    expect(remember.args.safeParse({ text: "x", kind: "episode", scope: "agent" }).success).toBe(false);
    expect(remember.args.safeParse({ text: "x", kind: "fact", scope: "everyone" }).error?.issues[0].message).toMatch(/scope is agent/);
  });
});

describe("confirmation", () => {
  it("with memoryConfirm a saved memory waits for a choose request; keep makes it count, discard rejects it", async () => {
    const run = await runRow(teamA);
    const specs = { get: async () => ({ guardrails: { memoryConfirm: true } }) };
    const remember = tool(
      memoryTools(store, { db: tk.t.db, specs, appendEvents: (id, events) => tk.kernel.store.appendEvents(id, events) }),
      "remember",
    );
    const kept = (await remember.execute(
      { text: "Zebra deployments need the blue button", kind: "fact", scope: "team" },
      ctxFor(run.id, "k1"),
    )) as { id: string; state: string; requestId: string };
    expect(kept.state).toBe("pending");
    const request = await tk.t.db.humanRequest.findUniqueOrThrow({ where: { id: kept.requestId } });
    expect(request).toMatchObject({ kind: "choose", slot: "memory", teamId: teamA, state: "PENDING" });
    expect(JSON.parse(request.payload).options.map((o: { id: string }) => o.id)).toEqual(["keep", "discard"]);
    // Pending: it does not count yet.
    expect(await store.recall("zebra", { agentName: "demo-coder", teamId: teamA })).toEqual([]);
    const decider = { id: tk.users.approver, name: "approver", role: "approver" as const };
    await tk.hitl!.broker.decide(kept.requestId, decider, { decision: "choose", optionId: "keep" }, "inbox");
    await waitFor(async () => (await store.get(kept.id))?.state === "active" || null, "the memory to be kept");
    expect((await store.get(kept.id))?.decidedById).toBe(tk.users.approver);
    expect((await store.recall("zebra", { agentName: "demo-coder", teamId: teamA })).map((m) => m.id)).toEqual([kept.id]);

    const dropped = (await remember.execute(
      { text: "Yak shaving is mandatory", kind: "preference", scope: "team" },
      ctxFor(run.id, "k2"),
    )) as { id: string; requestId: string };
    await tk.hitl!.broker.decide(dropped.requestId, decider, { decision: "choose", optionId: "discard" }, "inbox");
    await waitFor(async () => (await store.get(dropped.id))?.state === "rejected" || null, "the memory to be discarded");
    expect(await store.recall("yak shaving", { agentName: "demo-coder", teamId: teamA })).toEqual([]);
    // The run never waited: it stayed running, and the timeline shows the request.
    expect((await tk.t.db.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe("running");
    expect(await tk.t.db.runEvent.count({ where: { runId: run.id, type: "human.requested" } })).toBe(2);
  });

  it("an open memory request does not keep a waiting run from going on", async () => {
    const run = await runRow(teamA);
    const specs = { get: async () => ({ guardrails: { memoryConfirm: true } }) };
    const remember = tool(memoryTools(store, { db: tk.t.db, specs }), "remember");
    await remember.execute({ text: "Open confirmation", kind: "fact", scope: "agent" }, ctxFor(run.id, "w1"));
    await tk.t.db.run.update({ where: { id: run.id }, data: { status: "waiting_human" } });
    await tk.hitl!.broker.afterWaiting(run.id);
    expect((await tk.t.db.run.findUniqueOrThrow({ where: { id: run.id } })).status).not.toBe("waiting_human");
    await tk.t.db.run.update({ where: { id: run.id }, data: { status: "canceled" } });
  });
});

describe("the prompt loader's budget", () => {
  it("puts pinned memories first, then the most relevant, never over the budget, and counts what it left out", async () => {
    const team = (await createTeam(tk.t.db, { actor: tk.actors.admin, channel: "test" }, "Budget team")).id;
    const pinned = await store.create(base({ teamId: team, title: "House rule", text: "Always write tests first.", pinned: true }));
    for (let i = 0; i < 20; i++)
      await store.create(
        base({ teamId: team, title: `Parser note ${i}`, text: `The parser handles case ${i} of the grammar; ${"detail ".repeat(20)}` }),
      );
    await store.create(base({ teamId: team, title: "Unrelated", text: "Coffee machine is on floor two" }));
    const runMemory = createRunMemory(store);
    const small = await runMemory.promptFor(
      { id: "r", teamId: team, goal: "Fix the parser grammar", agentName: "demo-coder" },
      { guardrails: { memoryTokens: 200 } },
    );
    expect(small.budgetTokens).toBe(200);
    expect(small.loaded[0].id).toBe(pinned.memory.id);
    expect(small.loaded.length).toBeGreaterThan(1);
    expect(small.omitted).toBeGreaterThan(0);
    expect(countTokens(small.text!)).toBeLessThanOrEqual(200);
    expect(small.text).toContain("did not fit");
    expect(small.loaded.map((m) => m.title)).not.toContain("Unrelated");
    const used = await tk.t.db.memory.findUniqueOrThrow({ where: { id: pinned.memory.id } });
    expect(used.uses).toBe(1);
    expect(used.lastUsedAt).not.toBeNull();

    const none = await runMemory.promptFor(
      { id: "r", teamId: team, goal: "Fix the parser grammar", agentName: "demo-coder" },
      { guardrails: { memoryTokens: 0 } },
    );
    expect(none).toEqual({ text: null, loaded: [], omitted: 0, budgetTokens: 0 });
    const dflt = await runMemory.promptFor(
      { id: "r", teamId: team, goal: "Fix the parser grammar", agentName: "demo-coder" },
      { guardrails: {} },
    );
    expect(dflt.budgetTokens).toBe(1500);
    expect(dflt.loaded.length).toBe(21);
    expect(dflt.omitted).toBe(0);
  });
});

describe("search ranking", () => {
  it("ranks a small corpus by BM25: more and rarer matching words first, the title weighing more", async () => {
    const team = (await createTeam(tk.t.db, { actor: tk.actors.admin, channel: "test" }, "Ranking team")).id;
    const docs = [
      ["Rollback procedure", "To roll back a deploy, run make rollback and check the health endpoint."],
      ["Deploy checklist", "Before a deploy: run the tests, tag the release, deploy to staging, then deploy to production."],
      ["Lunch", "The team eats at noon."],
      ["Logging", "Logs are in /var/log; deploy logs rotate daily."],
      ["Kubernetes", "The cluster runs on three nodes; kubectl rollout restart restarts a deployment."],
    ];
    for (const [title, text] of docs) await store.create(base({ teamId: team, title, text }));
    const scope = { agentName: "demo-coder", teamId: team };
    // The checklist says it most (and in its title); of two single mentions, the shorter text ranks first.
    const deploy = (await store.recall("deploy", scope)).map((m) => m.title);
    expect(deploy).toEqual(["Deploy checklist", "Logging", "Rollback procedure"]);
    // Words stem: "restarts" finds "restart", "rotate" finds "rotates".
    expect((await store.recall("restarting", scope)).map((m) => m.title)).toEqual(["Kubernetes"]);
    const rollback = await store.recall("rollback deploy", scope);
    expect(rollback[0].title).toBe("Rollback procedure");
    expect((await store.recall("lunch noon", scope)).map((m) => m.title)).toEqual(["Lunch"]);
    expect(await store.recall("nothing matches this", scope)).toEqual([]);
  });
});

describe("episodes", () => {
  it("every run that ends leaves one episode (goal, outcome, what worked, what failed, cost); writing it again rewrites it", async () => {
    const run = await createRun(tk.kernel, { goal: "Write fizzbuzz in Python", agent: "demo-coder" }, tk.actors.operator);
    expect(await tk.settle(run.id)).toBe("succeeded");
    const episode = await waitFor(async () => tk.t.db.memory.findFirst({ where: { sourceRunId: run.id, kind: "episode" } }), "the episode");
    expect(episode).toMatchObject({ scope: "agent", agentName: "demo-coder", teamId: run.teamId ?? null, state: "active" });
    expect(episode.text).toMatch(/^Goal: Write fizzbuzz in Python\nOutcome: succeeded\nWhat worked: .*write_file ×\d/m);
    expect(episode.text).toMatch(/What failed: /);
    expect(episode.text).toMatch(/Steps: \d+ model calls, \d+ tokens; cost \$\d+(\.\d+)?$/m);
    await writeEpisode({ db: tk.t.db, store }, run.id);
    expect(await tk.t.db.memory.count({ where: { sourceRunId: run.id, kind: "episode" } })).toBe(1);
    // A scenario replay keeps none.
    const replay = await createRun(
      tk.kernel,
      { goal: "Say hi", agent: "demo-coder", scenario: { turns: [{ text: "Hi." }] } },
      tk.actors.operator,
    );
    await tk.settle(replay.id);
    await listener.idle();
    expect(await tk.t.db.memory.count({ where: { sourceRunId: replay.id } })).toBe(0);
  });
});
