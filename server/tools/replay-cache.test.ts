// Replay cache contract (docs/runs.md#replay-safety): every ReplayCache backend
// runs the same cases through the ToolRunner. Tools here count their
// executions, so a test fails if a cached call runs again.
import os from "node:os";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createSqliteTestDb, createTestDb, makeTempDir } from "@/test/helpers/db";
import { createPgTestDb } from "@/test/helpers/pg";
import {
  MemoryReplayCache,
  PrismaReplayCache,
  SqliteReplayCache,
  ReplayUnsafeError,
  ToolError,
  ToolRegistry,
  ToolRunner,
  Workspace,
  canonicalJson,
  inputHash,
  type CacheKey,
  type CallAddress,
  type ReplayCache,
  type ReplayClass,
  type ToolContext,
  type ToolDefinition,
  type ToolOutcome,
} from "./index";
import { HeldRuns, isLeaseLost, openNativeSqlite, type Db } from "@/server/db";

interface Backend {
  name: string;
  make(): Promise<{ cache: ReplayCache; cleanup(): Promise<void> }>;
}

/** A database backend whose writes carry the epochs in `held` (server/db/fences.ts). */
interface FencedBackend {
  name: string;
  make(): Promise<{ cache: ReplayCache; db: Db; held: HeldRuns; cleanup(): Promise<void> }>;
}

const FENCED_BACKENDS: FencedBackend[] = [
  {
    name: "PrismaReplayCache",
    async make() {
      const t = await createTestDb();
      const held = new HeldRuns();
      return { cache: new PrismaReplayCache(t.db, held), db: t.db, held, cleanup: () => t.cleanup() };
    },
  },
  {
    name: "PrismaReplayCache on PostgreSQL",
    async make() {
      const t = await createPgTestDb(makeTempDir("rein-test-pg-"));
      const held = new HeldRuns();
      return { cache: new PrismaReplayCache(t.db, held), db: t.db, held, cleanup: () => t.cleanup() };
    },
  },
  {
    name: "SqliteReplayCache (direct, default on SQLite)",
    async make() {
      const t = await createSqliteTestDb();
      const native = openNativeSqlite(t.url);
      const held = new HeldRuns();
      return {
        cache: new SqliteReplayCache(native, held),
        db: t.db,
        held,
        cleanup: async () => {
          native.close();
          await t.cleanup();
        },
      };
    },
  },
];

const BACKENDS: Backend[] = [
  {
    name: "PrismaReplayCache",
    async make() {
      const t = await createTestDb();
      // No Run rows exist: the cache table has no foreign keys (docs/runs.md#replay-safety).
      return { cache: new PrismaReplayCache(t.db), cleanup: () => t.cleanup() };
    },
  },
  {
    name: "SqliteReplayCache (direct, default on SQLite)",
    async make() {
      const t = await createSqliteTestDb();
      const native = openNativeSqlite(t.url);
      return {
        cache: new SqliteReplayCache(native),
        cleanup: async () => {
          native.close();
          await t.cleanup();
        },
      };
    },
  },
  {
    name: "PrismaReplayCache on PostgreSQL",
    async make() {
      const t = await createPgTestDb(makeTempDir("rein-test-pg-"));
      return { cache: new PrismaReplayCache(t.db), cleanup: () => t.cleanup() };
    },
  },
  {
    name: "MemoryReplayCache",
    async make() {
      return { cache: new MemoryReplayCache(), cleanup: async () => {} };
    },
  },
];

type Args = { n: number; tag?: string };

/** A tool of the given class that records every execution. */
function countingTool(name: string, replayClass: ReplayClass, extra: Partial<ToolDefinition<Args>> = {}) {
  const executions: Args[] = [];
  const tool: ToolDefinition<Args> = {
    name,
    description: `test tool (${replayClass})`,
    args: z.object({ n: z.number().int(), tag: z.string().optional() }).strict(),
    replayClass,
    persistence: "none",
    async execute(args) {
      executions.push(args);
      return { doubled: args.n * 2, tag: args.tag ?? null };
    },
    ...extra,
  };
  return { tool, executions };
}

/** Records writes to the cache, so a test can check that nothing was written. */
function recording(inner: ReplayCache) {
  const writes: string[] = [];
  const cache: ReplayCache = {
    get: (key) => inner.get(key),
    async writeIntent(key, rc) {
      writes.push(`intent:${key.toolName}`);
      return inner.writeIntent(key, rc);
    },
    async writeResult(key, rc, outcome) {
      writes.push(`result:${key.toolName}`);
      return inner.writeResult(key, rc, outcome);
    },
  };
  return { cache, writes };
}

const ADDRESS: CallAddress = { runId: "run-contract", nodeId: "1:call_0_0", checkpointId: "checkpoint-1" };

function keyOf(tool: ToolDefinition<Args>, args: Args, address: CallAddress = ADDRESS): CacheKey {
  return { ...address, toolName: tool.name, inputHash: inputHash(args, tool.idempotencyKey?.(args)) };
}

function ctx(): ToolContext {
  return {
    runId: ADDRESS.runId,
    workspace: new Workspace(os.tmpdir()),
    agent: { name: "tester", handoffs: [] },
    actorId: "user-test",
    signal: new AbortController().signal,
  };
}

describe.each(BACKENDS)("replay cache contract: $name", (backend) => {
  let cache: ReplayCache;
  let writes: string[];
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    const made = await backend.make();
    const rec = recording(made.cache);
    cache = rec.cache;
    writes = rec.writes;
    cleanup = made.cleanup;
  });
  afterEach(async () => {
    await cleanup();
  });

  function runnerFor(...tools: ToolDefinition<Args>[]) {
    const runner = new ToolRunner(new ToolRegistry(tools), cache);
    const allowed = tools.map((t) => t.name);
    return (toolName: string, args: unknown, address: CallAddress = ADDRESS, names: string[] = allowed) =>
      runner.run({ toolCallId: "call_0_0", toolName, args }, address, ctx(), names);
  }

  describe("the cache itself", () => {
    it("has nothing for an unknown key, an intent after writeIntent, the outcome after writeResult", async () => {
      const { tool } = countingTool("t", "unsafe_on_replay");
      const key = keyOf(tool, { n: 1 });
      expect(await cache.get(key)).toBeNull();
      await cache.writeIntent(key, "unsafe_on_replay");
      expect(await cache.get(key)).toEqual({ status: "intent" });
      const outcome: ToolOutcome = { ok: true, output: { nested: { list: [1, "two", null], text: "ünïcödé ✓" } } };
      await cache.writeResult(key, "unsafe_on_replay", outcome);
      expect(await cache.get(key)).toEqual({ status: "done", outcome });
      // Another address is another call.
      expect(await cache.get({ ...key, checkpointId: "checkpoint-2" })).toBeNull();
      expect(await cache.get({ ...key, nodeId: "2:call_1_0" })).toBeNull();
      expect(await cache.get({ ...key, runId: "another-run" })).toBeNull();
    });

    it("refuses a second intent for the same call and keeps the first", async () => {
      const { tool } = countingTool("t", "unsafe_on_replay");
      const key = keyOf(tool, { n: 1 });
      await cache.writeIntent(key, "unsafe_on_replay");
      await expect(cache.writeIntent(key, "unsafe_on_replay")).rejects.toThrow();
      expect(await cache.get(key)).toEqual({ status: "intent" });
    });
  });

  it.each(["pure", "idempotent_with_key", "unsafe_on_replay"] as ReplayClass[])(
    "returns a done result with cached=true and does not execute a %s tool",
    async (replayClass) => {
      const { tool, executions } = countingTool(
        "t",
        replayClass,
        replayClass === "idempotent_with_key" ? { idempotencyKey: () => "k" } : {},
      );
      const run = runnerFor(tool);
      const stored: ToolOutcome = { ok: true, output: { from: "the cache" } };
      await cache.writeResult(keyOf(tool, { n: 7 }), replayClass, stored);
      const result = await run("t", { n: 7 });
      expect(result).toMatchObject({ outcome: stored, cached: true, replayClass });
      expect(executions).toHaveLength(0);
    },
  );

  it("a pure tool misses, executes once and records its result; the same call then hits", async () => {
    const { tool, executions } = countingTool("pure_tool", "pure");
    const run = runnerFor(tool);
    const first = await run("pure_tool", { n: 2 });
    expect(first).toMatchObject({ outcome: { ok: true, output: { doubled: 4, tag: null } }, cached: false, replayClass: "pure" });
    expect(executions).toEqual([{ n: 2 }]);
    expect(writes).toEqual(["result:pure_tool"]); // no intent for a pure tool
    expect(await cache.get(keyOf(tool, { n: 2 }))).toEqual({ status: "done", outcome: first.outcome });

    const second = await run("pure_tool", { n: 2 });
    expect(second).toMatchObject({ outcome: first.outcome, cached: true });
    expect(executions).toHaveLength(1);

    // Other arguments, or the same arguments at another address, are other calls.
    await run("pure_tool", { n: 3 });
    await run("pure_tool", { n: 2 }, { ...ADDRESS, checkpointId: "checkpoint-9" });
    expect(executions).toEqual([{ n: 2 }, { n: 3 }, { n: 2 }]);
  });

  it("makes an idempotent_with_key tool's key part of the cache key", async () => {
    let currentKey = "key-1";
    const { tool, executions } = countingTool("keyed", "idempotent_with_key", { idempotencyKey: () => currentKey });
    const run = runnerFor(tool);
    expect((await run("keyed", { n: 1 })).cached).toBe(false);
    expect((await run("keyed", { n: 1 })).cached).toBe(true);
    expect(executions).toHaveLength(1);

    currentKey = "key-2"; // same arguments, another key: a miss
    const third = await run("keyed", { n: 1 });
    expect(third.cached).toBe(false);
    expect(executions).toHaveLength(2);

    expect(inputHash({ n: 1 }, "key-1")).not.toBe(inputHash({ n: 1 }, "key-2"));
    expect(inputHash({ n: 1 }, "key-1")).not.toBe(inputHash({ n: 1 }));
    expect(inputHash({ n: 1 }, "")).not.toBe(inputHash({ n: 1 }));
  });

  it("writes an unsafe tool's intent before it executes, and its result after", async () => {
    const seenDuringExecution: unknown[] = [];
    const { tool, executions } = countingTool("send_email", "unsafe_on_replay", {
      async execute(args) {
        executions.push(args);
        seenDuringExecution.push(await cache.get(keyOf(tool, args)));
        return { sent: true };
      },
    });
    const run = runnerFor(tool);
    const result = await run("send_email", { n: 1 });
    expect(result).toMatchObject({ outcome: { ok: true, output: { sent: true } }, cached: false, replayClass: "unsafe_on_replay" });
    expect(executions).toHaveLength(1);
    expect(seenDuringExecution).toEqual([{ status: "intent" }]);
    expect(writes).toEqual(["intent:send_email", "result:send_email"]);
    expect(await cache.get(keyOf(tool, { n: 1 }))).toEqual({ status: "done", outcome: { ok: true, output: { sent: true } } });

    // Resuming returns the recorded result and sends nothing again.
    const again = await run("send_email", { n: 1 });
    expect(again).toMatchObject({ outcome: { ok: true, output: { sent: true } }, cached: true });
    expect(executions).toHaveLength(1);
  });

  it("refuses an unsafe tool whose intent has no result (ReplayUnsafeError) and does not execute it", async () => {
    const { tool, executions } = countingTool("send_email", "unsafe_on_replay");
    const run = runnerFor(tool);
    const key = keyOf(tool, { n: 1 });
    await cache.writeIntent(key, "unsafe_on_replay");
    writes.length = 0;

    let caught: unknown;
    try {
      await run("send_email", { n: 1 });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ReplayUnsafeError);
    const err = caught as ReplayUnsafeError;
    expect(err.toolName).toBe("send_email");
    expect(err.address).toEqual(ADDRESS);
    expect(err.message).toContain("send_email");
    expect(err.message).toContain(ADDRESS.nodeId);
    expect(err.message).toMatch(/not run again/);
    expect(executions).toHaveLength(0);
    expect(writes).toEqual([]);
    expect(await cache.get(key)).toEqual({ status: "intent" }); // the evidence is kept
  });

  it.each(["pure", "idempotent_with_key"] as ReplayClass[])("re-executes a %s tool that has a stray intent", async (replayClass) => {
    const { tool, executions } = countingTool(
      "safe",
      replayClass,
      replayClass === "idempotent_with_key" ? { idempotencyKey: () => "k" } : {},
    );
    const run = runnerFor(tool);
    const key = keyOf(tool, { n: 4 });
    await cache.writeIntent(key, replayClass);
    const result = await run("safe", { n: 4 });
    expect(result).toMatchObject({ outcome: { ok: true, output: { doubled: 8 } }, cached: false });
    expect(executions).toHaveLength(1);
    expect(await cache.get(key)).toEqual({ status: "done", outcome: result.outcome });
  });

  it("canonicalJson makes key order irrelevant", async () => {
    const a = { b: 1, a: { d: [1, { y: 1, x: 2 }], c: null }, u: undefined };
    const b = { a: { c: null, d: [1, { x: 2, y: 1 }] }, b: 1 };
    expect(canonicalJson(a)).toBe('{"a":{"c":null,"d":[1,{"x":2,"y":1}]},"b":1}');
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(inputHash(a)).toBe(inputHash(b));
    // Array order and values still matter.
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
    expect(inputHash({ x: 1 })).not.toBe(inputHash({ x: "1" }));
    expect(canonicalJson("s")).toBe('"s"');
    expect(canonicalJson(null)).toBe("null");
    expect(canonicalJson(undefined)).toBe("null");

    const { tool, executions } = countingTool("pure_tool", "pure");
    const run = runnerFor(tool);
    await run("pure_tool", { n: 1, tag: "x" });
    const reordered = await run("pure_tool", JSON.parse('{"tag":"x","n":1}'));
    expect(reordered.cached).toBe(true);
    expect(executions).toHaveLength(1);
  });

  it("caches an error outcome too, and a thrown error becomes TOOL_FAILED", async () => {
    const { tool: refusing, executions: refused } = countingTool("refusing", "unsafe_on_replay", {
      async execute(args) {
        refused.push(args);
        throw new ToolError("NOPE", "the far side said no");
      },
    });
    const { tool: crashing, executions: crashed } = countingTool("crashing", "pure", {
      async execute(args) {
        crashed.push(args);
        throw new Error("boom");
      },
    });
    const run = runnerFor(refusing, crashing);

    const first = await run("refusing", { n: 1 });
    expect(first).toMatchObject({ outcome: { ok: false, error: { code: "NOPE", message: "the far side said no" } }, cached: false });
    const second = await run("refusing", { n: 1 });
    expect(second).toMatchObject({ outcome: first.outcome, cached: true });
    expect(refused).toHaveLength(1);

    const c1 = await run("crashing", { n: 1 });
    expect(c1.outcome).toEqual({ ok: false, error: { code: "TOOL_FAILED", message: "crashing failed: boom" } });
    expect((await run("crashing", { n: 1 })).cached).toBe(true);
    expect(crashed).toHaveLength(1);
  });

  it("answers an unknown tool with an error outcome naming it, executes and records nothing", async () => {
    const { tool, executions } = countingTool("known", "unsafe_on_replay");
    const { tool: hidden, executions: hiddenRuns } = countingTool("hidden", "pure");
    const runner = new ToolRunner(new ToolRegistry([tool, hidden]), cache);
    const call = (toolName: string) => runner.run({ toolCallId: "c", toolName, args: { n: 1 } }, ADDRESS, ctx(), ["known"]);

    const unknown = await call("launch_rockets");
    expect(unknown).toMatchObject({ cached: false, replayClass: null });
    expect(unknown.outcome).toEqual({
      ok: false,
      error: { code: "UNKNOWN_TOOL", message: 'Tool "launch_rockets" is not available to this agent (available: known)' },
    });
    // Registered, but not one of this agent's tools: the same answer.
    const notAllowed = await call("hidden");
    expect(notAllowed.outcome).toMatchObject({ ok: false, error: { code: "UNKNOWN_TOOL" } });
    expect((notAllowed.outcome as { error: { message: string } }).error.message).toContain('"hidden"');
    expect(executions).toHaveLength(0);
    expect(hiddenRuns).toHaveLength(0);
    expect(writes).toEqual([]);
  });

  it.each([
    { args: { n: "seven" }, field: "n" },
    { args: {}, field: "n" },
    { args: { n: 1.5 }, field: "n" },
    { args: { n: 1, extra: true }, field: "extra" },
    { args: "not an object", field: "(arguments)" },
    { args: null, field: "(arguments)" },
  ])("answers invalid arguments $args with an error outcome naming $field, executes and records nothing", async ({ args, field }) => {
    const { tool, executions } = countingTool("strict_tool", "unsafe_on_replay");
    const run = runnerFor(tool);
    const result = await run("strict_tool", args);
    expect(result.cached).toBe(false);
    expect(result.outcome.ok).toBe(false);
    const error = (result.outcome as { error: { code: string; message: string } }).error;
    expect(error.code).toBe("INVALID_ARGUMENTS");
    expect(error.message).toMatch(/^Invalid arguments for strict_tool: /);
    expect(error.message).toContain(field);
    expect(executions).toHaveLength(0);
    expect(writes).toEqual([]);
  });
});

describe.each(FENCED_BACKENDS)("replay cache fencing: $name", (backend) => {
  let made: Awaited<ReturnType<FencedBackend["make"]>>;
  beforeEach(async () => {
    made = await backend.make();
  });
  afterEach(async () => {
    await made.cleanup();
  });

  const lease = (epoch: number) => {
    const row = { owner: "worker-test", ownerKey: 1, epoch, expiresAt: new Date(Date.now() + 10_000) };
    return made.db.runLease.upsert({ where: { runId: ADDRESS.runId }, create: { runId: ADDRESS.runId, ...row }, update: row });
  };
  const key = (n: number): CacheKey => ({ ...ADDRESS, toolName: "send", inputHash: `h${n}` });
  const outcome: ToolOutcome = { ok: true, output: { sent: true } };

  it("records intents and results while the worker holds the run", async () => {
    await lease(1);
    made.held.hold(ADDRESS.runId, 1);
    await made.cache.writeIntent(key(1), "unsafe_on_replay");
    await made.cache.writeResult(key(1), "unsafe_on_replay", outcome);
    expect(await made.cache.get(key(1))).toEqual({ status: "done", outcome });
  });

  it("refuses an intent and a result once another worker took the run, and records neither", async () => {
    await lease(1);
    made.held.hold(ADDRESS.runId, 1);
    await made.cache.writeIntent(key(1), "unsafe_on_replay");
    await lease(2);
    const lost = async (p: Promise<unknown>) =>
      expect(
        isLeaseLost(
          await p.then(
            () => null,
            (e: unknown) => e,
          ),
        ),
      ).toBe(true);
    await lost(made.cache.writeResult(key(1), "unsafe_on_replay", outcome));
    await lost(made.cache.writeIntent(key(2), "unsafe_on_replay"));
    // The new holder finds the intent without a result: it asks a person, never re-runs.
    expect(await made.cache.get(key(1))).toEqual({ status: "intent" });
    expect(await made.cache.get(key(2))).toBeNull();
  });
});
