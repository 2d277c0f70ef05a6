// Attack suite: Rein's A2A endpoints (docs/a2a.md#security). No token or a
// revoked one gets 401; a token of another team learns nothing of a task and
// cannot cancel, follow or answer it; a viewer starts nothing and answers
// nothing; an agent that is not exposed has no card and takes no task;
// oversized, malformed and out-of-bounds requests get clear errors and start
// nothing; a card forged or signed with another key does not verify; cards
// never point where a request's Host says; secrets' values never come back.
import crypto from "node:crypto";
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { flattenedVerify, importJWK } from "jose";
import { AgentCard, canonicalizeAgentCard, generateAgentCardSignature, verifyAgentCardSignature } from "@a2a-js/sdk";
import { exposeAgent, unexposeAgent, type ExposedAgent } from "@/server/channels";
import { createApiToken, createUser, revokeApiToken } from "@/server/identity";
import { createRun } from "@/server/kernel";
import { putSecret } from "@/server/secrets";
import { createTestKernel, type TestKernel } from "../helpers/kernel";
import { testServices } from "../helpers/services";
import { startA2aServer, type A2aTestServer } from "../helpers/a2a";
import { waitFor } from "../helpers/wait";

const TASK_NOT_FOUND = -32001;
const INVALID_PARAMS = -32602;
const SECRET_VALUE = "hunter2-a2a-secret-value-7Q9";

let tk: TestKernel;
let a2a: A2aTestServer;
let deploy: ExposedAgent;
let coder: ExposedAgent;
let runId: string;
let requestId: string;
const tokens = {} as Record<"viewer" | "operator" | "approver" | "outsider" | "revoked", string>;

let rpcId = 0;
async function rpc(token: string | undefined, agentId: string, method: string, params: unknown, headers: Record<string, string> = {}) {
  return a2a.call("POST", `/a2a/agents/${agentId}`, {
    token,
    body: JSON.stringify({ jsonrpc: "2.0", id: ++rpcId, method, params }),
    headers,
  });
}
const send = (text: string, extra: Record<string, unknown> = {}) => ({
  message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }], ...extra },
  configuration: { returnImmediately: true },
});

beforeAll(async () => {
  tk = await createTestKernel({ hitl: true, secrets: true });
  const db = tk.t.db;
  for (const role of ["viewer", "operator", "approver"] as const)
    tokens[role] = (await createApiToken(db, { userId: tk.users[role], name: role })).token;
  const revoked = await createApiToken(db, { userId: tk.users.operator, name: "revoked" });
  await revokeApiToken(db, tk.users.operator, revoked.id);
  tokens.revoked = revoked.token;
  // An approver of another team: may run agents for everyone, but sees nothing of this team's runs.
  const outsider = await createUser(db, {
    email: "approver@other.team",
    password: "password-123",
    role: "approver",
    teams: ["other-team"],
  });
  tokens.outsider = (await createApiToken(db, { userId: outsider, name: "outsider" })).token;
  deploy = await exposeAgent(db, tk.actors.admin, { agent: "demo-deploy" });
  coder = await exposeAgent(db, tk.actors.admin, { agent: "demo-coder", wellKnown: true });
  a2a = await startA2aServer(testServices(tk));
  const run = await createRun(tk.kernel, { goal: "Deploy the secret project", agent: "demo-deploy" }, tk.actors.operator);
  runId = run.id;
  requestId = (await waitFor(() => db.humanRequest.findFirst({ where: { runId, state: "PENDING" } }), "the approval request")).id;
});

afterAll(async () => {
  await a2a?.close();
  await tk?.cleanup();
});

describe("who may call", () => {
  it.each([
    ["no token", undefined],
    ["a forged token", "rein_forged"],
    ["a revoked token", "revoked"],
  ])("%s is 401 with WWW-Authenticate: Bearer, and starts nothing", async (_what, token) => {
    const before = await tk.t.db.run.count();
    const res = await rpc(token === "revoked" ? tokens.revoked : token, deploy.id, "SendMessage", send("Ship it"));
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    expect(res.json.error.message).toMatch(/API token/);
    expect(await tk.t.db.run.count()).toBe(before);
  });

  it("a viewer cannot start a task", async () => {
    const before = await tk.t.db.run.count();
    const res = await rpc(tokens.viewer, deploy.id, "SendMessage", send("Ship it"));
    expect(res.json.error.message).toMatch(/^FORBIDDEN: .*operator/);
    expect(await tk.t.db.run.count()).toBe(before);
    const audited = await tk.t.db.auditEntry.findFirstOrThrow({
      where: { kind: "a2a.call", actorId: tk.users.viewer },
      orderBy: { id: "desc" },
    });
    expect(audited).toMatchObject({ subject: "SendMessage", channel: "a2a", runId: null });
    expect(JSON.parse(audited.detail)).toMatchObject({ ok: false });
  });

  it("a viewer cannot answer a task's request, nor can an operator answer an approval; the request stays open", async () => {
    const viewer = await rpc(tokens.viewer, deploy.id, "SendMessage", send("approve", { taskId: runId }));
    expect(viewer.json.error.message).toMatch(/^FORBIDDEN/);
    const operator = await rpc(tokens.operator, deploy.id, "SendMessage", send("approve", { taskId: runId }));
    expect(operator.json.error.message).toMatch(/^FORBIDDEN: .*approver/);
    expect(await tk.t.db.humanRequest.findUniqueOrThrow({ where: { id: requestId }, select: { state: true } })).toEqual({
      state: "PENDING",
    });
  });

  it("the viewer may read the task of its team: input-required with the question", async () => {
    const res = await rpc(tokens.viewer, deploy.id, "GetTask", { id: runId });
    expect(res.json.result.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    expect(JSON.stringify(res.json.result.status.message)).toContain(requestId);
  });
});

describe("another team's task", () => {
  it.each([
    ["GetTask", () => ({ id: runId })],
    ["CancelTask", () => ({ id: runId })],
    ["SendMessage", () => send("approve", { taskId: runId })],
    ["SubscribeToTask", () => ({ id: runId })],
  ])("%s answers task not found, and changes nothing", async (method, params) => {
    const res = await rpc(tokens.outsider, deploy.id, method, params());
    expect(res.json.error).toMatchObject({ code: TASK_NOT_FOUND, message: `Task ${runId} was not found` });
    expect(await tk.t.db.humanRequest.findUniqueOrThrow({ where: { id: requestId }, select: { state: true } })).toEqual({
      state: "PENDING",
    });
    expect(await tk.t.db.run.findUniqueOrThrow({ where: { id: runId }, select: { status: true } })).toEqual({ status: "waiting_human" });
  });

  it("a run of one exposed agent is not a task of another", async () => {
    const res = await rpc(tokens.operator, coder.id, "GetTask", { id: runId });
    expect(res.json.error.code).toBe(TASK_NOT_FOUND);
  });
});

describe("agents that are not exposed", () => {
  it("an unknown agent id has no card and takes no task", async () => {
    expect((await a2a.call("GET", "/a2a/agents/abcdef0123456789/.well-known/agent-card.json")).status).toBe(404);
    const res = await rpc(tokens.operator, "abcdef0123456789", "SendMessage", send("Ship it"));
    expect(res.status).toBe(404);
    expect(res.json.error.message).toMatch(/No agent is exposed/);
  });

  it("a withdrawn agent's card and tasks are gone; only admins expose or withdraw", async () => {
    const db = tk.t.db;
    await expect(exposeAgent(db, tk.actors.operator, { agent: "demo-release" })).rejects.toThrow(/admin/);
    const release = await exposeAgent(db, tk.actors.admin, { agent: "demo-release" });
    expect((await a2a.call("GET", `/a2a/agents/${release.id}/.well-known/agent-card.json`)).status).toBe(200);
    await expect(unexposeAgent(db, tk.actors.operator, "demo-release")).rejects.toThrow(/admin/);
    await unexposeAgent(db, tk.actors.admin, "demo-release");
    expect((await a2a.call("GET", `/a2a/agents/${release.id}/.well-known/agent-card.json`)).status).toBe(404);
    expect((await rpc(tokens.operator, release.id, "SendMessage", send("Pick one"))).status).toBe(404);
  });

  it("names nothing but the chosen agent in the well-known card, and no agent when none is chosen", async () => {
    const card = await a2a.call("GET", "/.well-known/agent-card.json");
    expect(card.text).toContain("demo-coder");
    for (const other of ["demo-deploy", "demo-release", "Default", "other-team"]) expect(card.text).not.toContain(other);
    await exposeAgent(tk.t.db, tk.actors.admin, { agent: "demo-coder", wellKnown: false });
    try {
      expect((await a2a.call("GET", "/.well-known/agent-card.json")).status).toBe(404);
    } finally {
      await exposeAgent(tk.t.db, tk.actors.admin, { agent: "demo-coder", wellKnown: true });
    }
  });
});

describe("bad requests", () => {
  it("an oversized body is 413 and starts nothing", async () => {
    const before = await tk.t.db.run.count();
    const res = await rpc(tokens.operator, coder.id, "SendMessage", send("x".repeat(300 * 1024)));
    expect(res.status).toBe(413);
    expect(await tk.t.db.run.count()).toBe(before);
  });

  it.each([
    ["not JSON", "{nope", 400, /Parse error/],
    [
      "nested too deep",
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: JSON.parse("[".repeat(100) + "]".repeat(100)) }),
      400,
      /deep/,
    ],
    ["a batch", JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } }]), 400, /batches/],
  ])("%s is a JSON-RPC error with HTTP %s", async (_what, body, status, message) => {
    const res = await a2a.call("POST", `/a2a/agents/${coder.id}`, { token: tokens.operator, body });
    expect(res.status).toBe(status);
    expect(res.json.error.message).toMatch(message);
  });

  it.each([
    [
      "too many parts",
      { message: { messageId: "m", role: "ROLE_USER", parts: Array.from({ length: 17 }, () => ({ text: "a" })) } },
      /more than 16 parts/,
    ],
    ["too much text", { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "a".repeat(20_001) }] } }, /longer than 20000/],
    ["no parts", { message: { messageId: "m", role: "ROLE_USER", parts: [] } }, /empty/],
    ["a file part", { message: { messageId: "m", role: "ROLE_USER", parts: [{ url: "file:///etc/passwd" }] } }, /text and data parts only/],
    ["no message", {}, /message is required/],
  ])("%s is invalid params, and starts nothing", async (_what, params, message) => {
    const before = await tk.t.db.run.count();
    const res = await rpc(tokens.operator, coder.id, "SendMessage", params);
    expect(res.json.error.code).toBe(INVALID_PARAMS);
    expect(res.json.error.message).toMatch(message);
    expect(await tk.t.db.run.count()).toBe(before);
  });

  it("an unknown method, another content type and another protocol version are the protocol's errors", async () => {
    expect((await rpc(tokens.operator, coder.id, "tasks/get", { id: "x" })).json.error.code).toBe(-32601);
    const type = await a2a.call("POST", `/a2a/agents/${coder.id}`, {
      token: tokens.operator,
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } }),
      headers: { "content-type": "text/plain" },
    });
    expect(type.json.error.code).toBe(-32005);
    expect((await rpc(tokens.operator, coder.id, "GetTask", { id: "x" }, { "A2A-Version": "0.3" })).json.error.code).toBe(-32009);
  });

  it("a reply that is no decision is refused with what to send, and the request stays open", async () => {
    const res = await rpc(tokens.approver, deploy.id, "SendMessage", send("sure, whatever", { taskId: runId }));
    expect(res.json.error.code).toBe(INVALID_PARAMS);
    expect(res.json.error.message).toMatch(/approve/);
    expect(await tk.t.db.humanRequest.findUniqueOrThrow({ where: { id: requestId }, select: { state: true } })).toEqual({
      state: "PENDING",
    });
  });
});

describe("cards that are not Rein's", () => {
  it("a card changed after signing, or signed with another key, does not verify", async () => {
    // The SDK's verifier logs each signature that fails before it throws.
    vi.spyOn(console, "debug").mockImplementation(() => {});
    const res = await a2a.call("GET", "/.well-known/agent-card.json");
    const jwks = (await a2a.call("GET", "/a2a/jwks.json")).json as { keys: Array<Record<string, string>> };
    const reinKey = () => importJWK(jwks.keys[0], "EdDSA");
    const verify = verifyAgentCardSignature(reinKey as never);
    const card = AgentCard.fromJSON(res.json);
    await expect(verify(card)).resolves.toBeUndefined();

    const forged = { ...card, supportedInterfaces: [{ ...card.supportedInterfaces[0], url: "https://evil.example/a2a" }] };
    await expect(verify(forged)).rejects.toThrow(/No valid signatures/);
    const [sig] = card.signatures;
    await expect(
      flattenedVerify(
        { payload: Buffer.from(canonicalizeAgentCard(forged)).toString("base64url"), protected: sig.protected, signature: sig.signature },
        await reinKey(),
      ),
    ).rejects.toThrow();

    const { privateKey } = crypto.generateKeyPairSync("ed25519");
    const kid = JSON.parse(Buffer.from(sig.protected, "base64url").toString()).kid as string;
    const other = await generateAgentCardSignature(privateKey, { alg: "EdDSA", typ: "JOSE", kid })({ ...forged, signatures: [] });
    await expect(verify(other)).rejects.toThrow(/No valid signatures/);
    vi.restoreAllMocks();
  });

  it("the key's private half is in no answer", async () => {
    const jwks = await a2a.call("GET", "/a2a/jwks.json");
    expect(jwks.json.keys.every((k: Record<string, unknown>) => !("d" in k))).toBe(true);
    const row = await tk.t.db.setting.findUniqueOrThrow({ where: { key: "a2a.signing-key" } });
    const sealed = JSON.parse(row.value) as { sealed: string };
    expect(jwks.text).not.toContain(sealed.sealed.slice(0, 20));
  });

  it("cards point at Rein's public URL, whatever Host a request names", async () => {
    const url = new URL(`${a2a.base}/.well-known/agent-card.json`);
    // fetch would not send a forged Host header; a raw request does.
    const text = await new Promise<string>((resolve, reject) => {
      const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, headers: { host: "evil.example" } }, (res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c.toString()));
        res.on("end", () => resolve(body));
      });
      req.on("error", reject);
      req.end();
    });
    expect(text).not.toContain("evil.example");
    expect(AgentCard.fromJSON(JSON.parse(text)).supportedInterfaces[0].url).toBe(`${a2a.base}/a2a/agents/${coder.id}`);
  });
});

describe("secrets", () => {
  it("a secret's value in a task's message never comes back in the task", async () => {
    await putSecret(tk.t.db, tk.keyring!, { name: "DEPLOY_TOKEN", value: SECRET_VALUE, actor: null });
    const res = await rpc(tokens.operator, coder.id, "SendMessage", {
      message: { messageId: "m-secret", role: "ROLE_USER", parts: [{ text: `Write fizzbuzz; the token is ${SECRET_VALUE}` }] },
    });
    expect(res.json.result.task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(res.text).not.toContain(SECRET_VALUE);
    const got = await rpc(tokens.operator, coder.id, "GetTask", { id: res.json.result.task.id });
    expect(got.text).not.toContain(SECRET_VALUE);
    expect(got.json.result.artifacts.length).toBeGreaterThan(0);
  });
});
