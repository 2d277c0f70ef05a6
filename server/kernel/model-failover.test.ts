// Runs on configured providers
// (docs/models.md#failover-cooldowns-and-the-circuit-breaker) through the whole
// kernel, with fake OpenAI-compatible servers on loopback: streamed text,
// failover on 429 and 5xx with the cooldown the provider asked for, no failover
// once text has reached the watcher or for a request the provider refused, the
// sensitivity pool, and the key never in the event log or the trace.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { createRun } from "@/server/kernel";
import { ProviderError, startFakeOpenAI, type FakeServer } from "@/server/models";

let tk: TestKernel;
let primary: FakeServer;
let backup: FakeServer;
const KEY = "sk-primary-0123456789abcdef";

async function events(runId: string) {
  const rows = await tk.t.db.runEvent.findMany({ where: { runId }, orderBy: { seq: "asc" }, select: { type: true, payload: true } });
  return rows.map((r) => ({ type: r.type, payload: JSON.parse(r.payload) }));
}

async function launch(model: string, actor = tk.actors.operator) {
  const run = await createRun(tk.kernel, { goal: "Say hello", agent: "demo-coder", model }, actor);
  return { id: run.id, status: await tk.settle(run.id) };
}

beforeAll(async () => {
  tk = await createTestKernel({ models: true, telemetry: true });
  primary = await startFakeOpenAI({ apiKey: KEY, models: ["m1"] });
  backup = await startFakeOpenAI({ models: ["m2"] });
  const admin = { userId: tk.users.admin, name: "admin" };
  const m = tk.models!.admin;
  await m.createProvider({ name: "primary", kind: "openai-compatible", baseUrl: primary.baseUrl, apiKey: KEY }, admin);
  await m.createProvider({ name: "backup", kind: "openai-compatible", baseUrl: backup.baseUrl, selfHosted: true }, admin);
  await m.saveModel(
    { provider: "primary", modelId: "m1", family: "alpha", strength: 0.9, prices: { inputPerMTok: 1, outputPerMTok: 2 } },
    admin,
  );
  await m.saveModel({ provider: "backup", modelId: "m2", family: "beta", strength: 0.6 }, admin);
  await m.setRouting({ rules: { code: { candidates: ["primary/m1", "backup/m2"] } } }, admin);
}, 60_000);

afterEach(() => {
  primary.reset();
  backup.reset();
});

afterAll(async () => {
  await tk?.cleanup();
  await primary?.close();
  await backup?.close();
});

describe("runs on configured providers", () => {
  it("streams the provider's text into the run and records the routing decision", async () => {
    primary.enqueue({ type: "reply", reply: { text: "Hello from the primary model.", chunkSize: 3 } });
    const run = await launch("auto");
    expect(run.status).toBe("succeeded");
    const turn = (await events(run.id)).find((e) => e.type === "model.turn")!;
    expect(turn.payload).toMatchObject({ model: "primary/m1", scripted: false, text: "Hello from the primary model." });
    expect(turn.payload.routing).toMatchObject({ taskClass: "code", strategy: "ordered", candidates: ["primary/m1", "backup/m2"] });
    expect(primary.lastRequest().headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it("executes the tool calls a provider streams, and sends their results back on the next turn", async () => {
    primary.enqueue(
      {
        type: "reply",
        reply: {
          toolCalls: [
            { id: "call_1", name: "write_file", arguments: JSON.stringify({ path: "hello.txt", content: "hi from a real model\n" }) },
          ],
          chunkSize: 5,
        },
      },
      { type: "reply", reply: { text: "Wrote hello.txt." } },
    );
    const run = await launch("primary/m1");
    expect(run.status).toBe("succeeded");
    const log = await events(run.id);
    expect(log.find((e) => e.type === "tool.result")!.payload).toMatchObject({ tool: "write_file", ok: true });
    const fs = await import("node:fs");
    expect(fs.readFileSync(`${tk.kernel.deps.workspaceFor(run.id).root}/hello.txt`, "utf8")).toBe("hi from a real model\n");
    const second = primary.lastRequest().body;
    expect(JSON.stringify(second.messages)).toContain("call_1");
  });

  it("fails over on 429, cools the deployment down for Retry-After, and routes around it while it rests", async () => {
    primary.enqueue({ type: "status", status: 429, headers: { "retry-after": "7" }, message: "Slow down" });
    backup.enqueue({ type: "reply", reply: { text: "Backup here." } });
    const run = await launch("auto");
    expect(run.status).toBe("succeeded");
    const log = await events(run.id);
    const error = log.find((e) => e.type === "model.error")!;
    expect(error.payload).toMatchObject({
      model: "primary/m1",
      errorKind: "rate_limit",
      status: 429,
      retryAfterMs: 7000,
      cooldownMs: 7000,
      failoverTo: "backup/m2",
    });
    const turn = log.find((e) => e.type === "model.turn")!;
    expect(turn.payload).toMatchObject({ model: "backup/m2", text: "Backup here.", failovers: 1 });
    // The next run starts on the backup: the primary is cooling down and is tried last.
    backup.enqueue({ type: "reply", reply: { text: "Still the backup." } });
    const next = await launch("auto");
    expect(next.status).toBe("succeeded");
    const nextTurn = (await events(next.id)).find((e) => e.type === "model.turn")!;
    expect(nextTurn.payload.model).toBe("backup/m2");
    expect(nextTurn.payload.routing.candidates).toEqual(["backup/m2", "primary/m1"]);
    expect(nextTurn.payload.routing.skipped[0].reason).toMatch(/cooling down/);
    expect(primary.requests).toHaveLength(1);
    // The failed attempt is an error span of its own with why, beside the turn that answered.
    await tk.telemetry!.settle();
    const spans = await tk.t.db.span.findMany({
      where: { runId: run.id, kind: "chat" },
      select: { status: true, attributes: true, model: true },
    });
    const failed = spans.find((s) => s.status === "error")!;
    expect(JSON.parse(failed.attributes)).toMatchObject({
      "error.type": "rate_limit",
      "rein.routing.failover_to": "backup/m2",
      "rein.provider.retry_after_ms": 7000,
    });
    const answered = spans.find((s) => s.status === "ok")!;
    expect(JSON.parse(answered.attributes)).toMatchObject({
      "rein.routing.task_class": "code",
      "rein.routing.candidates": "primary/m1,backup/m2",
      "rein.routing.failovers": 1,
    });
  });

  it("fails over on a 500 too, but not on a request the provider refused (400), which fails the run with its message", async () => {
    tk.models!.router.coolDown("backup/m2", null); // nothing: only provider errors cool a deployment
    backup.enqueue({ type: "status", status: 500, message: "Internal" });
    primary.enqueue({ type: "reply", reply: { text: "Primary again." } });
    const run = await launch("backup/m2");
    expect(run.status).toBe("succeeded");
    const log = await events(run.id);
    expect(log.find((e) => e.type === "model.error")!.payload).toMatchObject({
      model: "backup/m2",
      errorKind: "server",
      failoverTo: "primary/m1",
    });

    primary.enqueue({ type: "status", status: 400, message: "Bad tool schema" });
    const refused = await launch("primary/m1");
    expect(refused.status).toBe("failed");
    const errors = (await events(refused.id)).filter((e) => e.type === "model.error");
    expect(errors).toHaveLength(1);
    expect(errors[0].payload).toMatchObject({ errorKind: "bad_request" });
    expect(errors[0].payload.failoverTo).toBeUndefined();
    expect(errors[0].payload.cooldownMs).toBeUndefined();
    expect(backup.requests).toHaveLength(1);
  });

  it("a model nothing answers for rests longer each time in a row, is listed as failing with why in words, and is forgiven once it answers", async () => {
    const router = tk.models!.router;
    const down = () => new ProviderError({ kind: "network", message: "connect ECONNREFUSED 127.0.0.1:9" });
    expect(router.coolDown("primary/m1", down())).toBe(15_000);
    expect(router.coolDown("primary/m1", down())).toBe(30_000);
    expect(router.coolDown("primary/m1", down())).toBe(60_000);
    const [failing] = tk.models!.admin.health();
    expect(failing).toMatchObject({ ref: "primary/m1", failures: 3, kind: "network" });
    expect(failing.words).toContain(`Nothing answers at ${new URL(primary.baseUrl).origin}: is the server running`);
    expect(failing.coolingUntil).toBeGreaterThan(Date.now() + 50_000);
    // Once it answers it is healthy again. (The backup rests longer here, so the primary is tried first.)
    router.coolDown("backup/m2", new ProviderError({ kind: "rate_limit", message: "Slow down", retryAfterMs: 600_000 }));
    primary.enqueue({ type: "reply", reply: { text: "Back." } });
    const run = await launch("primary/m1");
    expect(run.status).toBe("succeeded");
    expect((await events(run.id)).find((e) => e.type === "model.turn")!.payload.model).toBe("primary/m1");
    expect(tk.models!.admin.health().map((h) => h.ref)).toEqual(["backup/m2"]);
    router.answered("backup/m2");
    expect(tk.models!.admin.health()).toEqual([]);
  });

  it("does not fail over once text has reached the watcher", async () => {
    primary.enqueue({ type: "hang-mid-stream", reply: { text: "Half a sentence and then" } });
    const run = await launch("primary/m1");
    expect(run.status).toBe("failed");
    const error = (await events(run.id)).find((e) => e.type === "model.error")!;
    expect(error.payload).toMatchObject({ errorKind: "timeout", noFailover: "text had already reached the watcher" });
    expect(backup.requests).toHaveLength(0);
  }, 30_000);

  it("keeps a team with a sensitivity pool on its pool's models", async () => {
    const admin = { userId: tk.users.admin, name: "admin" };
    const teamId = (await tk.t.db.teamMember.findFirst({ where: { userId: tk.users.operator }, select: { teamId: true } }))!.teamId;
    await tk.models!.admin.setRouting(
      {
        rules: { code: { candidates: ["primary/m1", "backup/m2"] } },
        pools: [{ name: "on-prem", selfHosted: true }],
        teamPools: { [teamId]: "on-prem" },
      },
      admin,
    );
    try {
      backup.enqueue({ type: "reply", reply: { text: "On premises." } });
      const run = await launch("auto");
      expect(run.status).toBe("succeeded");
      const turn = (await events(run.id)).find((e) => e.type === "model.turn")!;
      expect(turn.payload).toMatchObject({ model: "backup/m2" });
      expect(turn.payload.routing).toMatchObject({ pool: "on-prem", candidates: ["backup/m2"] });
      expect(primary.requests).toHaveLength(0);
      await expect(launch("primary/m1")).rejects.toThrow(/outside the pool "on-prem"/);
    } finally {
      await tk.models!.admin.setRouting({ rules: { code: { candidates: ["primary/m1", "backup/m2"] } } }, admin);
    }
  });

  it("never writes the provider's key into the event log or the trace", async () => {
    await tk.telemetry!.settle();
    const allEvents = await tk.t.db.runEvent.findMany({ select: { payload: true } });
    const allSpans = await tk.t.db.span.findMany();
    expect(allEvents.length).toBeGreaterThan(5);
    expect(JSON.stringify(allEvents)).not.toContain(KEY);
    expect(JSON.stringify(allSpans)).not.toContain(KEY);
    const audit = await tk.t.db.auditEntry.findMany({ where: { kind: { startsWith: "provider." } } });
    expect(audit.length).toBeGreaterThan(0);
    expect(JSON.stringify(audit)).not.toContain(KEY);
  });
});
