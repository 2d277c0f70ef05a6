// Team gateway keys (docs/gateway.md#team-keys): an admin issues a key, a
// program calls the gateway on Rein's port with it (Chat Completions streamed
// and not, Anthropic Messages), routed to configured providers (the fake
// OpenAI and Anthropic servers, with a provider key). Every call is a chat
// span with its cost and counts in CostRollup for the team; the key's budget
// and the team's are enforced before each call; a revoked key is refused.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyWorkflowId } from "@/server/gateway";
import { startFakeAnthropic, startFakeOpenAI, type FakeServer } from "@/server/models";
import { createTestKernel, type TestKernel } from "./helpers/kernel";
import { callerFor } from "./helpers/services";
import { startGatewayKeyServer, type GatewayKeyServer } from "./helpers/gateway-keys";

const PROVIDER_KEY = "sk-provider-key-for-gateway-keys-0123456789";
const PRICE = { inputPerMTok: 3, outputPerMTok: 15 };

let tk: TestKernel;
let gk: GatewayKeyServer;
let openai: FakeServer;
let anthropic: FakeServer;
let teamId: string;

const admin = () => callerFor(tk, tk.actors.admin);

async function chat(key: string, body: Record<string, unknown>) {
  const res = await fetch(`${gk.base}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ messages: [{ role: "user", content: "Say hello" }], ...body }),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

beforeAll(async () => {
  tk = await createTestKernel({ telemetry: true, models: true });
  openai = await startFakeOpenAI({ apiKey: PROVIDER_KEY, models: ["m1"] });
  anthropic = await startFakeAnthropic({ apiKey: PROVIDER_KEY, models: ["claude-fake-haiku"] });
  const by = { userId: tk.users.admin, name: "admin" };
  await tk.models!.admin.createProvider({ name: "oa", kind: "openai-compatible", baseUrl: openai.baseUrl, apiKey: PROVIDER_KEY }, by);
  await tk.models!.admin.saveModel({ provider: "oa", modelId: "m1", family: "alpha", prices: PRICE }, by);
  await tk.models!.admin.createProvider({ name: "an", kind: "anthropic", baseUrl: anthropic.baseUrl, apiKey: PROVIDER_KEY }, by);
  await tk.models!.admin.saveModel({ provider: "an", modelId: "claude-fake-haiku", family: "claude", prices: PRICE }, by);
  await tk.telemetry!.loadPrices();
  gk = await startGatewayKeyServer(tk);
  teamId = tk.actors.operator.teamIds[0];
}, 60_000);

afterAll(async () => {
  await gk?.close();
  await openai?.close();
  await anthropic?.close();
  await tk?.cleanup();
});

describe("a team gateway key", () => {
  let key: string;
  let keyId: string;

  it("is shown once when made, and listed without it", async () => {
    const made = await admin().gatewayKeys.create({ teamId, name: "ci scripts", model: "oa/m1" });
    key = made.key;
    keyId = made.gatewayKey.id;
    expect(key).toMatch(/^rein_gk_[A-Za-z0-9_-]{43}$/);
    expect(made.gatewayKey).toMatchObject({ name: "ci scripts", state: "active", model: "oa/m1", budgetUsd: null });
    expect(key.startsWith(made.gatewayKey.prefix)).toBe(true);
    const listed = await admin().gatewayKeys.list({ teamId });
    expect(JSON.stringify(listed)).not.toContain(key);
    expect(listed.map((k) => k.id)).toContain(keyId);
  });

  it("serves Chat Completions, whole and streamed, from the key's model; the provider key stays in Rein", async () => {
    const whole = await chat(key, { model: "gpt-4o" });
    expect(whole.status, whole.text).toBe(200);
    const answer = JSON.parse(whole.text);
    expect(answer.object).toBe("chat.completion");
    expect(answer.usage.prompt_tokens).toBeGreaterThan(0);
    expect(openai.requests.at(-1)?.headers.authorization).toBe(`Bearer ${PROVIDER_KEY}`);

    const streamed = await chat(key, { stream: true, stream_options: { include_usage: true } });
    expect(streamed.status, streamed.text).toBe(200);
    expect(streamed.headers.get("content-type")).toContain("text/event-stream");
    expect(streamed.text).toContain("chat.completion.chunk");
    expect(streamed.text.trim().endsWith("data: [DONE]")).toBe(true);
    expect(whole.text + streamed.text).not.toContain(PROVIDER_KEY);
  });

  it("serves Anthropic Messages with x-api-key, routed to the model the request names when Rein knows it", async () => {
    const res = await fetch(`${gk.base}/messages`, {
      method: "POST",
      headers: { "x-api-key": key, "anthropic-version": "2023-06-01", "content-type": "application/json" },
      body: JSON.stringify({ model: "an/claude-fake-haiku", max_tokens: 64, messages: [{ role: "user", content: "Say hello" }] }),
    });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(JSON.parse(text)).toMatchObject({ type: "message", role: "assistant" });
    expect(anthropic.requests.length).toBeGreaterThan(0);
  });

  it("records each call as a chat span with its cost, in CostRollup for the team, and in the key's spend and last use", async () => {
    await tk.telemetry!.settle();
    const runId = keyWorkflowId(keyId);
    const spans = await tk.t.db.span.findMany({ where: { runId } });
    expect(spans).toHaveLength(3);
    for (const s of spans) {
      expect(s).toMatchObject({ kind: "chat", teamId, workflowId: runId, status: "ok" });
      expect(s.costUsd).toBeGreaterThan(0);
      expect(s.attributes + (s.detail ?? "")).not.toContain(key);
    }
    expect(spans.map((s) => s.model).sort()).toEqual(["an/claude-fake-haiku", "oa/m1", "oa/m1"]);
    const rollups = await tk.t.db.costRollup.findMany({ where: { teamId, workflowId: runId } });
    expect(rollups.reduce((n, r) => n + r.calls, 0)).toBe(3);
    const cost = spans.reduce((n, s) => n + s.costUsd, 0);
    expect(rollups.reduce((n, r) => n + r.costUsd, 0)).toBeCloseTo(cost, 10);
    const [listed] = (await admin().gatewayKeys.list({ teamId })).filter((k) => k.id === keyId);
    expect(listed.spentThisMonthUsd).toBeCloseTo(cost, 10);
    expect(listed.lastUsedAt).not.toBeNull();
    // The Costs page reads the same rollups: the team's total includes the key's calls.
    const summary = await admin().costs.summary({ groupBy: "team" });
    expect(summary.totals.costUsd).toBeGreaterThanOrEqual(cost - 1e-9);
  });

  it("is refused with 402, in words, once its own budget for the month is spent", async () => {
    const made = await admin().gatewayKeys.create({ teamId, name: "small", model: "oa/m1", budgetUsd: 0.0001 });
    expect((await chat(made.key, {})).status).toBe(200);
    await tk.telemetry!.settle();
    const refused = await chat(made.key, {});
    expect(refused.status).toBe(402);
    expect(refused.headers.get("x-should-retry")).toBe("false");
    const { error } = JSON.parse(refused.text);
    expect(error.code).toBe("budget_exceeded");
    expect(error.message).toMatch(/The gateway key small has spent \$[\d.]+ of its \$[\d.]+ budget for \d{4}-\d{2}/);
  });

  it("is refused with 402 once the team's monthly budget is spent, the same budget its runs have", async () => {
    await tk.telemetry!.settle();
    const spent = (await tk.t.db.costRollup.aggregate({ where: { teamId }, _sum: { costUsd: true } }))._sum.costUsd ?? 0;
    await admin().budgets.setTeam({ teamId, budgetUsd: Math.floor(spent * 1e6) / 1e6 });
    try {
      const refused = await chat(key, {});
      expect(refused.status).toBe(402);
      expect(JSON.parse(refused.text).error.message).toMatch(/^Team .+ has spent \$[\d.]+ of its \$[\d.]+ budget for \d{4}-\d{2}/);
    } finally {
      await admin().budgets.setTeam({ teamId, budgetUsd: null });
    }
    expect((await chat(key, {})).status).toBe(200);
  });

  it("warns the team's channels once a month when its calls take the team past 80% of its budget, as runs do", async () => {
    await tk.telemetry!.settle();
    const month = new Date().toISOString().slice(0, 7);
    const spent = (await tk.t.db.costRollup.aggregate({ where: { teamId, day: { gte: `${month}-01` } }, _sum: { costUsd: true } }))._sum
      .costUsd!;
    // The team's month so far made 85% of a $100 budget by one more rollup row, removed after.
    const padding = { day: `${month}-01`, teamId, workflowId: "padding", model: "test/padding" };
    await tk.t.db.costRollup.create({ data: { ...padding, costUsd: 85 - spent } });
    await admin().budgets.setTeam({ teamId, budgetUsd: 100 });
    const warnings = () => tk.t.db.outboxMessage.findMany({ where: { type: "budget.warning" } });
    try {
      expect(await warnings()).toHaveLength(0);
      expect((await chat(key, {})).status).toBe(200);
      expect((await chat(key, {})).status).toBe(200);
      const all = await warnings();
      expect(all).toHaveLength(1);
      expect(all[0].runId).toBeNull();
      expect(JSON.parse(all[0].data)).toMatchObject({ gatewayKeyId: keyId, scope: "team", teamId, month, budgetUsd: 100, share: 0.8 });
    } finally {
      await tk.t.db.costRollup.delete({ where: { day_teamId_workflowId_model: padding } });
      await admin().budgets.setTeam({ teamId, budgetUsd: null });
    }
  });

  it("is refused with 401 on the next call once revoked", async () => {
    const revoked = await admin().gatewayKeys.revoke({ id: keyId });
    expect(revoked.state).toBe("revoked");
    const refused = await chat(key, {});
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.text).error).toMatchObject({ code: "invalid_api_key", message: expect.stringContaining("was revoked") });
    const audit = await tk.t.db.auditEntry.findMany({ where: { kind: { startsWith: "gateway_key." } }, select: { kind: true } });
    expect(audit.map((a) => a.kind)).toEqual(expect.arrayContaining(["gateway_key.created", "gateway_key.revoked"]));
  });
});
