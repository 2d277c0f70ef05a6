// Memory in real runs, wired as the server wires it: what one run remembers
// is loaded into the next run's prompt in the same team (listed by a
// memory.loaded event, so a person sees why the agent did what it did), never
// into another team's, and within a share of a small context window.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun, type RunEventRecord } from "@/server/kernel";
import { createTeam, createUser, loadActor, type Actor } from "@/server/identity";
import { MemoryStore, createRunMemory, memoryTools, setScenarioSharing, startMemoryListener } from "@/server/memory";
import type { Scenario } from "@/server/models";
import { createTestKernel, type TestKernel } from "./helpers/kernel";

let tk: TestKernel;
let listener: ReturnType<typeof startMemoryListener>;
let outsider: Actor;

beforeAll(async () => {
  tk = await createTestKernel({ hitl: true });
  const store = new MemoryStore({ db: tk.t.db });
  for (const tool of memoryTools(store, {
    db: tk.t.db,
    specs: tk.kernel.specs,
    appendEvents: (runId, events) => tk.kernel.store.appendEvents(runId, events),
  }))
    tk.kernel.deps.registry.register(tool);
  tk.kernel.deps.memory = createRunMemory(store);
  listener = startMemoryListener({ db: tk.t.db, bus: tk.kernel.bus, store });
  // These runs play scenarios: their memories reach the team's other runs only because the team shares them.
  await setScenarioSharing(tk.t.db, tk.actors.admin, { teamId: tk.actors.operator.teamIds[0], shared: true });
  const team = await createTeam(tk.t.db, { actor: tk.actors.admin, channel: "test" }, "Memory elsewhere");
  outsider = (await loadActor(
    tk.t.db,
    await createUser(tk.t.db, { email: "memory-out@test.local", password: "test-password-1", role: "operator", teams: [team.id] }),
  ))!;
}, 60_000);
afterAll(async () => {
  listener?.stop();
  await tk?.cleanup();
});

const events = (runId: string): Promise<RunEventRecord[]> => tk.kernel.store.listEvents(runId, 0, 10_000);

const REMEMBERS: Scenario = {
  turns: [
    {
      text: "Noting what I found.",
      toolCalls: [
        {
          tool: "remember",
          args: { text: "The staging database listens on port 5433, not 5432.", title: "Staging port", kind: "fact", scope: "team" },
        },
      ],
    },
    { text: "Noted." },
  ],
};

describe("memory across runs", () => {
  it("a fact one run remembers is in the next run's prompt in its team, listed on the run; another team's run never gets it", async () => {
    const first = await createRun(
      tk.kernel,
      { goal: "Find out how staging is set up", agent: "demo-coder", scenario: REMEMBERS },
      tk.actors.operator,
    );
    expect(await tk.settle(first.id)).toBe("succeeded");
    const saved = (await events(first.id)).find((e) => e.type === "tool.result")!.payload as { ok: boolean };
    expect(saved.ok).toBe(true);

    const next = await createRun(
      tk.kernel,
      { goal: "Connect to the staging database", agent: "demo-coder", scenario: { turns: [{ text: "Connecting." }] } },
      tk.actors.operator,
    );
    expect(await tk.settle(next.id)).toBe("succeeded");
    const loaded = (await events(next.id)).find((e) => e.type === "memory.loaded")?.payload as {
      session: number;
      memories: Array<{ title: string; kind: string; scope: string; tokens: number }>;
      budgetTokens: number;
    };
    expect(loaded.session).toBe(1);
    expect(loaded.memories.map((m) => m.title)).toContain("Staging port");
    const state = (await tk.kernel.store.latestCheckpoint(next.id))!.state;
    expect(state.memories?.text).toContain("The staging database listens on port 5433");
    // The model saw it: the scripted model counts the system prompt, which is larger by the memories' tokens.
    expect(
      ((await events(next.id)).find((e) => e.type === "model.turn")!.payload as { usage: { inputTokens: number } }).usage.inputTokens,
    ).toBeGreaterThan(0);

    const elsewhere = await createRun(
      tk.kernel,
      { goal: "Connect to the staging database", agent: "demo-coder", scenario: { turns: [{ text: "Connecting." }] } },
      outsider,
    );
    expect(await tk.settle(elsewhere.id)).toBe("succeeded");
    expect((await events(elsewhere.id)).some((e) => e.type === "memory.loaded" && JSON.stringify(e.payload).includes("Staging port"))).toBe(
      false,
    );
    expect((await tk.kernel.store.latestCheckpoint(elsewhere.id))!.state.memories?.text ?? "").not.toContain("5433");
  });

  it("keeps to a tenth of a small context window, whatever the agent's budget", async () => {
    const run = await createRun(
      tk.kernel,
      {
        goal: "Connect to the staging database",
        agent: "demo-coder",
        scenario: { contextWindow: 4_000, turns: [{ text: "Connecting." }] },
      },
      tk.actors.operator,
    );
    expect(await tk.settle(run.id)).toBe("succeeded");
    const loaded = (await events(run.id)).find((e) => e.type === "memory.loaded")?.payload as {
      budgetTokens: number;
      memories: Array<{ tokens: number }>;
    };
    expect(loaded.budgetTokens).toBe(400);
    expect(loaded.memories.reduce((n, m) => n + m.tokens, 0)).toBeLessThanOrEqual(400);
  });

  it("every run leaves an episode its agent's next runs can recall", async () => {
    const run = await createRun(tk.kernel, { goal: "Write fizzbuzz", agent: "demo-coder" }, tk.actors.operator);
    expect(await tk.settle(run.id)).toBe("succeeded");
    await listener.idle();
    const episode = await tk.t.db.memory.findFirst({ where: { sourceRunId: run.id, kind: "episode" } });
    expect(episode?.text).toContain("Write fizzbuzz");
    expect(episode?.state).toBe("active");
  });
});
