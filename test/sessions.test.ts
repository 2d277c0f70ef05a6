// Long runs across fresh sessions: the built-in demo-long (scripted, a small
// context window) needs several sessions; every prompt of every session stays
// under the session budget; nothing durable is lost across a boundary (the
// task list, the notes, the commits); a provider's context-length refusal
// takes the same path; and a server killed in the middle of a boundary
// resumes it cleanly.
import fs from "node:fs";
import Database from "better-sqlite3";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createRun, sendMessage, type RunEventRecord } from "@/server/kernel";
import { createApiToken, createUser } from "@/server/identity";
import { BUILTIN_SCENARIOS, startFakeOpenAI, type FakeServer, type Scenario } from "@/server/models";
import { createTestKernel, type TestKernel } from "./helpers/kernel";
import { createTestDb, type TestDb } from "./helpers/db";
import { freePort, spawnServer, type ServerProcess } from "./helpers/server-process";
import { waitFor } from "./helpers/wait";

let tk: TestKernel;
let fake: FakeServer;

beforeAll(async () => {
  tk = await createTestKernel({ models: true });
  fake = await startFakeOpenAI({ models: ["m1"] });
  const admin = { userId: tk.users.admin, name: "admin" };
  await tk.models!.admin.createProvider({ name: "fake", kind: "openai-compatible", baseUrl: fake.baseUrl }, admin);
  await tk.models!.admin.saveModel({ provider: "fake", modelId: "m1", family: "alpha", contextWindow: 8_192 }, admin);
}, 60_000);
afterAll(async () => {
  await tk?.cleanup();
  await fake?.close();
});

const events = (runId: string): Promise<RunEventRecord[]> => tk.kernel.store.listEvents(runId, 0, 100_000);
const payloads = async <T>(runId: string, type: string) => (await events(runId)).filter((e) => e.type === type).map((e) => e.payload as T);

describe("demo-long", () => {
  it("needs several sessions; every prompt stays under the budget; the task list, notes and commits carry over", async () => {
    const run = await createRun(tk.kernel, { goal: "Build the unit library", agent: "demo-long" }, tk.actors.operator);
    expect(await tk.settle(run.id)).toBe("succeeded");
    const window = BUILTIN_SCENARIOS["demo-long"].contextWindow!;
    const budget = 0.9 * window;

    const started = await payloads<{
      session: number;
      reason: string;
      step: number;
      seed: { tasks: number; tasksDone: number; notes: number; commits: number };
    }>(run.id, "session.started");
    const ended = await payloads<{
      session: number;
      steps: number;
      contextTokens: number;
      contextWindow: number;
      usage: { inputTokens: number };
    }>(run.id, "session.ended");
    expect(started.length).toBeGreaterThanOrEqual(2);
    expect(started.map((s) => s.session)).toEqual(started.map((_, i) => i + 2));
    expect(ended.map((s) => s.session)).toEqual(started.map((s) => s.session - 1));
    for (const e of ended) {
      expect(e.contextWindow).toBe(window);
      expect(e.contextTokens).toBeGreaterThan(budget);
      expect(e.steps).toBeGreaterThan(0);
    }
    // What a prompt cost is what the scripted model counted: none of them reached the budget.
    const turns = await payloads<{ step: number; usage: { inputTokens: number }; text: string }>(run.id, "model.turn");
    for (const t of turns) expect(t.usage.inputTokens, `step ${t.step}`).toBeLessThanOrEqual(budget);
    // Each session's seed held what the one before had made durable.
    for (const s of started) {
      expect(s.reason).toBe("budget");
      expect(s.seed.tasks).toBe(6);
      expect(s.seed.tasksDone).toBeGreaterThan(0);
      expect(s.seed.notes).toBeGreaterThan(1);
      expect(s.seed.commits).toBeGreaterThan(1);
    }
    const state = (await tk.kernel.store.latestCheckpoint(run.id))!.state;
    expect(state.tasks.every((t) => t.status === "done")).toBe(true);
    expect(state.notes).toHaveLength(7);
    expect(state.session?.number).toBe(started.length + 1);
    // The conversation of the last session starts at its seed, which says where the work stood.
    const seed = state.messages[0];
    expect(seed.role).toBe("user");
    expect(seed.content).toMatch(/^\[Session \d+ · a fresh start after \d+ model turns\]\n/);
    expect(seed.content).toContain("Build the unit library");
    expect(seed.content).toMatch(/Task list \(\d of 6 done\):/);
    expect(seed.content).toContain("Recent commits in the workspace (git log, newest first):");
    expect(seed.content).toContain("Add the length module");
    // The work itself: every module committed, and the script played once, in order.
    expect(turns.map((t) => t.step)).toEqual(turns.map((_, i) => i + 1));
    expect(turns.at(-1)!.text).toMatch(/^All 6 modules are written, tested and committed/);
    const files = fs.readdirSync(`${tk.t.dir}/workspaces/${run.id}/src`).sort();
    expect(files).toEqual(["area.mjs", "length.mjs", "mass.mjs", "pressure.mjs", "speed.mjs", "volume.mjs"]);
    // Tool call ids stay unique across sessions, so no event was dropped as a duplicate.
    const calls = await payloads<{ toolCallId: string }>(run.id, "tool.call");
    expect(new Set(calls.map((c) => c.toolCallId)).size).toBe(calls.length);
    expect(await payloads(run.id, "tool.result")).toHaveLength(calls.length);
  }, 120_000);

  it("a person's message sent before a boundary is read in the next session", async () => {
    const steps = Array.from({ length: 8 }, (_, i) => ({
      text: `Step ${i + 1}.`,
      toolCalls: [{ tool: "shell", args: { command: `sleep 0.2; echo ${"padding ".repeat(30)}${i}` } }],
    }));
    const scenario: Scenario = { contextWindow: 1_400, turns: [...steps, { text: "Done." }], onMessage: [{ text: "Noted." }] };
    const run = await createRun(tk.kernel, { goal: "Pad it out", agent: "demo-coder", scenario }, tk.actors.operator);
    await waitFor(async () => (await payloads(run.id, "session.started")).length >= 1 || null, "a first boundary", { limitMs: 30_000 });
    const sent = await sendMessage(tk.kernel, run.id, tk.actors.operator, { text: "Remember the padding." });
    expect(await tk.settle(run.id)).toBe("succeeded");
    const read = (await payloads<{ messages?: number[]; text: string }>(run.id, "model.turn")).find((t) => t.messages);
    expect(read?.messages).toEqual([sent.seq]);
    expect(read?.text).toMatch(/^Noted\./);
  }, 60_000);

  it("fails with a clear reason when even a fresh session's prompt is too long for the model", async () => {
    const run = await createRun(
      tk.kernel,
      { goal: "Hello", agent: "demo-coder", scenario: { contextWindow: 300, turns: [{ text: "Hi." }] } },
      tk.actors.operator,
    );
    expect(await tk.settle(run.id)).toBe("failed");
    const row = await tk.t.db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(row.errorCode).toBe("CONTEXT_TOO_LARGE");
    expect(row.errorMessage).toMatch(/refused the prompt for its length \(\d+ tokens\) at the start of a fresh session/);
    expect(await payloads(run.id, "session.started")).toEqual([]);
  });
});

describe("a provider's context-length refusal", () => {
  it("starts a fresh session instead of failing the run", async () => {
    fake.reset();
    fake.enqueue(
      {
        type: "reply",
        reply: {
          toolCalls: [
            {
              id: "call_a",
              name: "update_tasks",
              arguments: JSON.stringify({ tasks: [{ title: "Read the logs", status: "doing" }], notes: "Started on the logs." }),
            },
          ],
        },
      },
      {
        type: "status",
        status: 400,
        message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9001 tokens.",
      },
      { type: "reply", reply: { text: "Picked up from the task list; done." } },
    );
    const run = await createRun(tk.kernel, { goal: "Read the logs", agent: "demo-coder", model: "fake/m1" }, tk.actors.operator);
    expect(await tk.settle(run.id)).toBe("succeeded");
    const started = await payloads<{ reason: string; reasonText: string; seed: { tasks: number; notes: number } }>(
      run.id,
      "session.started",
    );
    expect(started).toHaveLength(1);
    expect(started[0]).toMatchObject({
      reason: "context_refused",
      reasonText: "the model refused a prompt that long",
      seed: { tasks: 1, notes: 1 },
    });
    const posts = fake.requests.filter((r) => r.method === "POST");
    expect(posts).toHaveLength(3);
    // The call after the refusal was the fresh session: the system prompt and the seed only.
    const messages = (posts[2].body as { messages: Array<{ role: string; content: unknown }> }).messages;
    expect(messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(String(messages[1].content)).toContain("The previous session ended because the model refused a prompt that long");
    expect(String(messages[1].content)).toContain("- [doing] Read the logs");
    expect(String(messages[1].content)).toContain("Started on the logs.");
    expect((await payloads<{ errorKind?: string }>(run.id, "model.error"))[0].errorKind).toBe("bad_request");
  });
});

describe("a server killed in the middle of a session boundary", () => {
  let t: TestDb;
  let token: string;
  let servers: ServerProcess[] = [];
  beforeEach(async () => {
    t = await createTestDb();
    const userId = await createUser(t.db, { email: "op@rein.test", password: "password-123", role: "operator" });
    token = (await createApiToken(t.db, { userId, name: "sessions" })).token;
    await t.db.$disconnect();
  });
  afterEach(async () => {
    await Promise.all(servers.map((s) => s.kill()));
    servers = [];
    await t.cleanup();
  });

  async function start(extra: Record<string, string> = {}) {
    const s = spawnServer({
      REIN_DATA_DIR: t.dir,
      PORT: String(await freePort()),
      REIN_UI: "off",
      REIN_WORKERS: "1",
      REIN_POD_POOL_SIZE: "0",
      ...extra,
    });
    servers.push(s);
    await s.ready;
    return s;
  }

  function query<T>(sql: string, ...args: unknown[]): T[] {
    const db = new Database(t.url.slice("file:".length), { readonly: true, fileMustExist: true });
    try {
      return db.prepare(sql).all(...args) as T[];
    } finally {
      db.close();
    }
  }

  it("resumes it: one boundary per session, nothing lost, the run finishes", async () => {
    let server = await start({ REIN_FAILPOINTS: "session-boundary:1" });
    const res = await fetch(`${server.url}/api/v1/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ goal: "Build the unit library", agent: "demo-long" }),
    });
    const run = (await res.json()) as { id: string };
    expect(await server.exited).toBe("SIGKILL");
    // Killed after the seed was built, before it was written: no trace of the boundary.
    expect(query(`SELECT 1 FROM RunEvent WHERE runId = ? AND type LIKE 'session.%'`, run.id)).toEqual([]);
    server = await start();
    await waitFor(
      () => ["succeeded", "failed"].includes(query<{ status: string }>(`SELECT status FROM Run WHERE id = ?`, run.id)[0].status) || null,
      "the run to end",
      { limitMs: 60_000 },
    );
    expect(query<{ status: string }>(`SELECT status FROM Run WHERE id = ?`, run.id)[0].status).toBe("succeeded");
    const rows = query<{ seq: number; type: string; payload: string }>(
      `SELECT seq, type, payload FROM RunEvent WHERE runId = ? ORDER BY seq`,
      run.id,
    );
    expect(rows.map((r) => r.seq)).toEqual(rows.map((_, i) => i + 1));
    const started = rows.filter((r) => r.type === "session.started").map((r) => JSON.parse(r.payload).session);
    expect(started).toEqual(started.map((_, i) => i + 2));
    expect(rows.filter((r) => r.type === "session.ended")).toHaveLength(started.length);
    expect(rows.some((r) => r.type === "run.resumed")).toBe(true);
    const steps = rows.filter((r) => r.type === "model.turn").map((r) => JSON.parse(r.payload).step);
    expect(steps).toEqual(steps.map((_, i) => i + 1));
  }, 120_000);
});
