// Rein as an A2A server (docs/a2a.md) through the SDK's own client on a real
// HTTP server: the signed cards, demo-coder run as a task with its artifact,
// a stream, a cancel, and demo-deploy's approval as an input-required task
// answered on the task.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { flattenedVerify, importJWK } from "jose";
import {
  AgentCard,
  SendMessageRequest,
  TaskState,
  canonicalizeAgentCard,
  verifyAgentCardSignature,
  type StreamResponse,
  type Task,
} from "@a2a-js/sdk";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { testServices } from "@/test/helpers/services";
import { startA2aServer, type A2aTestServer } from "@/test/helpers/a2a";
import { startRestServer } from "@/test/helpers/rest";
import { createApiToken } from "@/server/identity";
import { RUN_STATES } from "@/server/kernel";
import { A2A_SIGNING_KEY_SETTING, TASK_STATE_OF, exposeAgent, taskStateOf, type ExposedAgent } from "./index";

let tk: TestKernel;
let a2a: A2aTestServer;
let coder: ExposedAgent;
let deploy: ExposedAgent;
const FINAL_STATES = [TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED];
const tokens = {} as Record<"viewer" | "operator" | "approver", string>;

const message = (text: string, extra: Record<string, unknown> = {}) =>
  SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }], ...extra } });

const textOf = (t: { parts: Array<{ content?: { $case: string; value: unknown } }> } | undefined) =>
  (t?.parts ?? []).map((p) => (p.content?.$case === "text" ? String(p.content.value) : "")).join("\n");

beforeAll(async () => {
  tk = await createTestKernel({ hitl: true, secrets: true });
  for (const role of ["viewer", "operator", "approver"] as const)
    tokens[role] = (await createApiToken(tk.t.db, { userId: tk.users[role], name: role })).token;
  coder = await exposeAgent(tk.t.db, tk.actors.admin, { agent: "demo-coder", wellKnown: true });
  deploy = await exposeAgent(tk.t.db, tk.actors.admin, { agent: "demo-deploy" });
  a2a = await startA2aServer(testServices(tk));
});

afterAll(async () => {
  await a2a?.close();
  await tk?.cleanup();
});

describe("state mapping", () => {
  it("maps every run state, and a waiting run with no open request is still working", () => {
    expect(Object.keys(TASK_STATE_OF).sort()).toEqual([...RUN_STATES].sort());
    expect(taskStateOf("waiting_human", 1)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(taskStateOf("waiting_human", 0)).toBe(TaskState.TASK_STATE_WORKING);
    expect(taskStateOf("succeeded", 0)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(taskStateOf("canceled", 0)).toBe(TaskState.TASK_STATE_CANCELED);
  });
});

describe("cards", () => {
  it("serves a signed card per exposed agent that verifies with the published key", async () => {
    const client = await a2a.client(coder.id, tokens.viewer);
    const jwks = (await a2a.call("GET", "/a2a/jwks.json")).json as { keys: Array<Record<string, string>> };
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: "OKP", crv: "Ed25519", alg: "EdDSA" });
    expect(jwks.keys[0]).not.toHaveProperty("d");
    const byKid = async (kid: string) =>
      importJWK(
        jwks.keys.find((k) => k.kid === kid)!,
        "EdDSA",
      );
    // The SDK's verifier, through the client:
    const card = await client.getAgentCard(undefined, verifyAgentCardSignature(byKid as never));
    expect(card.name).toBe("demo-coder");
    expect(card.supportedInterfaces[0]).toMatchObject({
      url: `${a2a.base}/a2a/agents/${coder.id}`,
      protocolBinding: "JSONRPC",
      protocolVersion: "1.0",
    });
    expect(Object.keys(card.securitySchemes)).toEqual(["reinApiToken"]);
    // And jose alone, over the canonical card as A2A 1.0 defines it:
    const [sig] = card.signatures;
    const header = JSON.parse(Buffer.from(sig.protected, "base64url").toString()) as Record<string, string>;
    expect(header).toMatchObject({ alg: "EdDSA", typ: "JOSE", kid: jwks.keys[0].kid, jku: `${a2a.base}/a2a/jwks.json` });
    const payload = Buffer.from(canonicalizeAgentCard(card)).toString("base64url");
    await expect(
      flattenedVerify({ payload, protected: sig.protected, signature: sig.signature }, await byKid(header.kid)),
    ).resolves.toBeTruthy();
  });

  it("the well-known card is the one agent chosen for it, and names nothing else", async () => {
    const res = await a2a.call("GET", "/.well-known/agent-card.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const card = AgentCard.fromJSON(res.json);
    expect(card.name).toBe("demo-coder");
    expect(res.text).not.toContain("demo-deploy");
    expect(res.text).not.toMatch(/team/i);
  });

  it("keeps the signing key sealed in its setting, and the same key across handlers", async () => {
    const row = await tk.t.db.setting.findUniqueOrThrow({ where: { key: A2A_SIGNING_KEY_SETTING } });
    expect(row.value).not.toContain("PRIVATE KEY");
    const again = await startA2aServer(testServices(tk));
    try {
      expect((await again.call("GET", "/a2a/jwks.json")).json).toEqual((await a2a.call("GET", "/a2a/jwks.json")).json);
    } finally {
      await again.close();
    }
  });
});

describe("tasks are runs", () => {
  it("runs demo-coder as a task and returns its artifact", async () => {
    const client = await a2a.client(coder.id, tokens.operator);
    const task = (await client.sendMessage(message("Write fizzbuzz"))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const run = await tk.t.db.run.findUniqueOrThrow({ where: { id: task.id } });
    expect(run).toMatchObject({ agentName: "demo-coder", goal: "Write fizzbuzz", status: "succeeded", createdById: tk.users.operator });
    const result = task.artifacts.find((a) => a.name === "result")!;
    expect(textOf(result).length).toBeGreaterThan(0);
    const files = result.parts.find((p) => p.content?.$case === "data")!.content!.value as { files: string[] };
    expect(files.files).toEqual(expect.arrayContaining(["src/fizzbuzz.mjs", "test/fizzbuzz.test.mjs"]));
    const written = task.artifacts.find((a) => a.name === "files")!;
    const source = written.parts.find((p) => p.filename === "src/fizzbuzz.mjs")!;
    expect(textOf({ parts: [source] })).toContain("export function fizzbuzz");
    // And get returns the same task.
    const got = await client.getTask({ tenant: "", id: task.id });
    expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(got.artifacts.map((a) => a.name)).toEqual(["result", "files"]);
    // Both calls are in the audit log, on the run, as the token's person.
    const audited = await tk.t.db.auditEntry.findMany({ where: { kind: "a2a.call", runId: task.id }, orderBy: { id: "asc" } });
    expect(audited.map((a) => [a.subject, a.actorId, a.channel])).toEqual([
      ["SendMessage", tk.users.operator, "a2a"],
      ["GetTask", tk.users.operator, "a2a"],
    ]);
  });

  it("streams a task: the task, then its status as it goes, its artifacts, and the end", async () => {
    const client = await a2a.client(coder.id, tokens.operator);
    const events: StreamResponse[] = [];
    for await (const e of client.sendMessageStream(message("Write fizzbuzz again"))) events.push(e);
    const kinds = events.map((e) => e.payload?.$case);
    expect(kinds[0]).toBe("task");
    expect(kinds).toContain("artifactUpdate");
    const last = events.at(-1)!.payload!;
    expect(last.$case).toBe("statusUpdate");
    expect(last.$case === "statusUpdate" && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(kinds.indexOf("artifactUpdate")).toBeLessThan(kinds.length - 1);
  });

  it("cancels a task through the kernel's cancel path", async () => {
    const client = await a2a.client(deploy.id, tokens.operator);
    const started = (await client.sendMessage(
      SendMessageRequest.fromJSON({
        message: { messageId: "m-cancel", role: "ROLE_USER", parts: [{ text: "Ship it" }] },
        configuration: { returnImmediately: true },
      }),
    )) as Task;
    expect(FINAL_STATES).not.toContain(started.status?.state);
    const canceled = await client.cancelTask({ tenant: "", id: started.id, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(await tk.t.db.run.findUniqueOrThrow({ where: { id: started.id }, select: { status: true } })).toEqual({ status: "canceled" });
    await expect(client.cancelTask({ tenant: "", id: started.id, metadata: undefined })).rejects.toThrow(/canceled run cannot be canceled/);
  });

  it("a human request is input-required; an approver's reply on the task answers it and the task completes", async () => {
    const operator = await a2a.client(deploy.id, tokens.operator);
    const waiting = (await operator.sendMessage(message("Ship it"))) as Task;
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(waiting.status?.message)).toMatch(/approve/i);
    const request = await tk.t.db.humanRequest.findFirstOrThrow({ where: { runId: waiting.id } });
    expect(request.state).toBe("PENDING");

    // A subscriber sees the task as it is and the stream ends: there is nothing to follow until someone answers.
    const viewer = await a2a.client(deploy.id, tokens.viewer);
    const seen: StreamResponse[] = [];
    for await (const e of viewer.resubscribeTask({ tenant: "", id: waiting.id })) seen.push(e);
    expect(seen.map((e) => e.payload?.$case)).toEqual(["task"]);
    expect(seen[0].payload?.$case === "task" && seen[0].payload.value.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

    const approver = await a2a.client(deploy.id, tokens.approver);
    const done = (await approver.sendMessage(message("approve looks right", { taskId: waiting.id, contextId: waiting.contextId }))) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const decided = await tk.t.db.humanRequest.findUniqueOrThrow({ where: { id: request.id } });
    expect(decided).toMatchObject({ state: "APPROVED", channel: "a2a", decidedById: tk.users.approver });
  });
});

describe("exposing agents over REST", () => {
  it("an admin exposes, lists and withdraws an agent; an operator may not", async () => {
    const rest = await startRestServer(testServices(tk));
    try {
      const admin = (await createApiToken(tk.t.db, { userId: tk.users.admin, name: "admin" })).token;
      const refused = await rest.call(tokens.operator, "PUT", "/api/v1/a2a/agents/demo-release", {});
      expect(refused.status).toBe(403);
      const exposed = await rest.call(admin, "PUT", "/api/v1/a2a/agents/demo-release", {});
      expect(exposed.status).toBe(200);
      expect(exposed.json).toMatchObject({ agent: "demo-release", wellKnown: false });
      expect(exposed.json.cardUrl).toMatch(new RegExp(`/a2a/agents/${exposed.json.id}/.well-known/agent-card.json$`));
      expect((await a2a.call("GET", `/a2a/agents/${exposed.json.id}/.well-known/agent-card.json`)).status).toBe(200);
      const listed = await rest.call(admin, "GET", "/api/v1/a2a/agents");
      expect(listed.json.agents.map((a: { agent: string }) => a.agent)).toEqual(["demo-coder", "demo-deploy", "demo-release"]);
      expect((await rest.call(admin, "PUT", "/api/v1/a2a/agents/nobody", {})).status).toBe(404);
      expect((await rest.call(admin, "DELETE", "/api/v1/a2a/agents/demo-release")).json).toEqual({ removed: true });
      expect((await a2a.call("GET", `/a2a/agents/${exposed.json.id}/.well-known/agent-card.json`)).status).toBe(404);
      expect((await rest.call(admin, "DELETE", "/api/v1/a2a/agents/demo-release")).json).toEqual({ removed: false });
    } finally {
      await rest.close();
    }
  });
});
