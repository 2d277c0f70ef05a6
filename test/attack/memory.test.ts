// Attack suite, issue class 32: memory. Another team's memories by id over
// tRPC and REST, or through search; FTS query syntax smuggled into a search
// or a recall; a secret's value in a memory an agent saves; a viewer
// editing. Also the REST and tRPC access rules for memories.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callerFor, testServices } from "@/test/helpers/services";
import { createApiToken, createTeam, createUser, loadActor, type Actor } from "@/server/identity";
import { MemoryStore, memoryTools, searchTerms, fts5Query, tsQuery } from "@/server/memory";
import { ToolSecrets, putSecret } from "@/server/secrets";
import type { ToolContext } from "@/server/tools";
import { createTestKernel, type TestKernel } from "../helpers/kernel";
import { startRestServer, type RestTestServer } from "../helpers/rest";
import { trpcError } from "../helpers/trpc";

const SECRET = "mem-secret-value-8d7c6b";

let tk: TestKernel;
let store: MemoryStore;
let rest: RestTestServer;
let outsider: Actor;
let theirs: string;
let ours: string;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  tk = await createTestKernel({ hitl: true, secrets: true });
  store = new MemoryStore({ db: tk.t.db });
  const team = await createTeam(tk.t.db, { actor: tk.actors.admin, channel: "test" }, "Elsewhere");
  outsider = (await loadActor(
    tk.t.db,
    await createUser(tk.t.db, { email: "elsewhere@test.local", password: "test-password-1", role: "operator", teams: ["Elsewhere"] }),
  ))!;
  theirs = (
    await store.create({
      scope: "team",
      kind: "fact",
      title: "Their deploy key location",
      text: "Team Elsewhere keeps its deploy notes in vault path alpha",
      agentName: "demo-coder",
      teamId: team.id,
      createdBy: "agent:demo-coder",
    })
  ).memory.id;
  ours = (
    await store.create({
      scope: "team",
      kind: "fact",
      title: "Our deploy notes",
      text: "Deploy with make ship",
      agentName: "demo-coder",
      teamId: tk.actors.operator.teamIds[0],
      createdBy: "agent:demo-coder",
    })
  ).memory.id;
  rest = await startRestServer(testServices(tk));
  for (const [name, userId] of [
    ["viewer", tk.users.viewer],
    ["operator", tk.users.operator],
    ["outsider", outsider.userId],
  ] as const) {
    tokens[name] = (await createApiToken(tk.t.db, { userId, name: `attack-${name}` })).token;
  }
}, 60_000);
afterAll(async () => {
  await rest?.close();
  await tk?.cleanup();
});

const caller = (actor: Actor) => callerFor(tk, actor);

describe("another team's memories", () => {
  it("cannot be read, edited, pinned or deleted by id over tRPC: NOT_FOUND, and nothing changes", async () => {
    const c = caller(tk.actors.operator);
    for (const call of [
      c.memories.get({ id: theirs }),
      c.memories.update({ id: theirs, text: "overwritten" }),
      c.memories.pin({ id: theirs, pinned: true }),
      c.memories.delete({ id: theirs }),
    ]) {
      expect((await trpcError(call)).code).toBe("NOT_FOUND");
    }
    const row = await tk.t.db.memory.findUniqueOrThrow({ where: { id: theirs } });
    expect(row).toMatchObject({ text: "Team Elsewhere keeps its deploy notes in vault path alpha", pinned: false });
  });

  it("cannot be read, edited, pinned or deleted by id over REST: 404, and nothing changes", async () => {
    const t = tokens.operator;
    expect((await rest.call(t, "GET", `/api/v1/memories/${theirs}`)).status).toBe(404);
    expect((await rest.call(t, "PATCH", `/api/v1/memories/${theirs}`, { text: "overwritten" })).status).toBe(404);
    expect((await rest.call(t, "POST", `/api/v1/memories/${theirs}/pin`, {})).status).toBe(404);
    expect((await rest.call(t, "DELETE", `/api/v1/memories/${theirs}`)).status).toBe(404);
    expect(await tk.t.db.memory.findUnique({ where: { id: theirs } })).toMatchObject({
      text: "Team Elsewhere keeps its deploy notes in vault path alpha",
      pinned: false,
    });
  });

  it("never show in a list or a search, over tRPC and REST", async () => {
    const listed = await caller(tk.actors.operator).memories.list({ q: "deploy vault alpha" });
    expect(listed.items.map((m) => m.id)).toEqual([ours]);
    const res = await rest.call(tokens.operator, "GET", `/api/v1/memories?q=${encodeURIComponent("deploy vault")}`);
    expect(res.status).toBe(200);
    expect(res.json.memories.map((m: { id: string }) => m.id)).toEqual([ours]);
    const all = await rest.call(tokens.operator, "GET", "/api/v1/memories");
    expect(all.json.memories.map((m: { id: string }) => m.id)).not.toContain(theirs);
    // And the outsider sees theirs, not ours.
    const other = await rest.call(tokens.outsider, "GET", `/api/v1/memories?q=deploy`);
    expect(other.json.memories.map((m: { id: string }) => m.id)).toEqual([theirs]);
  });
});

describe("a viewer", () => {
  it("reads but cannot edit, pin or delete (FORBIDDEN / 403), and nothing changes", async () => {
    const c = caller(tk.actors.viewer);
    expect((await c.memories.get({ id: ours })).id).toBe(ours);
    for (const call of [
      c.memories.update({ id: ours, text: "viewer was here" }),
      c.memories.pin({ id: ours, pinned: true }),
      c.memories.delete({ id: ours }),
    ]) {
      expect((await trpcError(call)).code).toBe("FORBIDDEN");
    }
    expect((await rest.call(tokens.viewer, "PATCH", `/api/v1/memories/${ours}`, { text: "viewer was here" })).status).toBe(403);
    expect((await rest.call(tokens.viewer, "DELETE", `/api/v1/memories/${ours}`)).status).toBe(403);
    expect((await rest.call(tokens.viewer, "GET", `/api/v1/memories/${ours}`)).status).toBe(200);
    expect(await tk.t.db.memory.findUnique({ where: { id: ours } })).toMatchObject({ text: "Deploy with make ship", pinned: false });
  });

  it("an operator of the memory's team may edit, pin and delete it", async () => {
    const c = caller(tk.actors.operator);
    const id = (
      await store.create({
        scope: "agent",
        kind: "fact",
        title: "Temp",
        text: "Temporary",
        agentName: "demo-coder",
        teamId: tk.actors.operator.teamIds[0],
        createdBy: "agent:demo-coder",
      })
    ).memory.id;
    expect((await c.memories.update({ id, text: "Edited" })).text).toBe("Edited");
    expect((await rest.call(tokens.operator, "POST", `/api/v1/memories/${id}/pin`, { pinned: true })).json.pinned).toBe(true);
    expect((await rest.call(tokens.operator, "PATCH", `/api/v1/memories/${id}`, { text: "x".repeat(2001) })).status).toBe(400);
    expect((await rest.call(tokens.operator, "GET", `/api/v1/memories?kind=nonsense`)).status).toBe(400);
    expect((await rest.call(tokens.operator, "DELETE", `/api/v1/memories/${id}`)).status).toBe(200);
    expect(await tk.t.db.memory.findUnique({ where: { id } })).toBeNull();
    expect(await tk.t.db.auditEntry.count({ where: { kind: { in: ["memory.updated", "memory.deleted"] } } })).toBeGreaterThanOrEqual(3);
  });
});

describe("search text is never search syntax", () => {
  const HOSTILE = [
    '"*" OR',
    "NEAR(deploy make, 1)",
    'deploy"',
    '"unbalanced',
    "title:deploy",
    "deploy*",
    "^deploy",
    "- deploy",
    "AND OR NOT",
    "(((",
    "*",
    '""',
    "deploy & ! | <->",
    "x".repeat(100_000),
    "ééé 漢字 deploy",
    "\u0000deploy",
  ];

  it("hostile queries answer normally (no error, no other team's rows) in search, recall and over REST", async () => {
    const c = caller(tk.actors.operator);
    for (const q of HOSTILE) {
      const listed = await c.memories.list({ q: q.slice(0, 4000) });
      expect(
        listed.items.every((m) => m.id !== theirs),
        q.slice(0, 40),
      ).toBe(true);
      const recalled = await store.recall(q, { agentName: "demo-coder", teamId: tk.actors.operator.teamIds[0] });
      expect(recalled.every((m) => m.id !== theirs)).toBe(true);
      const res = await rest.call(tokens.operator, "GET", `/api/v1/memories?q=${encodeURIComponent(q.slice(0, 4000))}`);
      expect(res.status, q.slice(0, 40)).toBe(200);
    }
    // The words still count: "NEAR(deploy make, 1)" searches for near, deploy and make.
    expect((await c.memories.list({ q: "NEAR(deploy make, 1)" })).items.map((m) => m.id)).toContain(ours);
  });

  it("terms are letters and digits only, quoted for FTS5, joined for tsquery", () => {
    expect(searchTerms('"*" OR NEAR( title:x ^y')).toEqual(["or", "near", "title", "x", "y"]);
    expect(fts5Query(searchTerms('a"b'))).toBe('"a" OR "b"');
    expect(tsQuery(searchTerms("deploy & !rollback <-> x:*"))).toBe("deploy | rollback | x");
    expect(searchTerms("x".repeat(100_000))).toEqual(["x".repeat(64)]);
    expect(searchTerms(Array.from({ length: 100 }, (_, i) => `w${i}`).join(" "))).toHaveLength(32);
  });
});

describe("secrets", () => {
  it("a secret's value in a memory an agent saves is redacted before it is stored", async () => {
    await putSecret(tk.t.db, tk.keyring!, { name: "DEPLOY_TOKEN", value: SECRET, actor: tk.users.admin });
    const secrets = new ToolSecrets({ db: tk.t.db, keyring: tk.keyring! });
    const run = await tk.t.db.run.create({
      data: {
        goal: "g",
        agentName: "demo-coder",
        agentVersion: 1,
        teamId: tk.actors.operator.teamIds[0],
        createdById: tk.users.operator,
        status: "running",
        model: "scripted/x",
      },
    });
    const remember = memoryTools(store, { db: tk.t.db, redactor: secrets }).find((t) => t.name === "remember")!;
    const ctx = {
      runId: run.id,
      toolCallId: "s1",
      agent: { name: "demo-coder", handoffs: [] },
      actorId: tk.users.operator,
      signal: new AbortController().signal,
    } as unknown as ToolContext;
    const out = (await remember.execute(
      { text: `The token is ${SECRET}; use it for deploys`, title: `Token ${SECRET}`, kind: "fact", scope: "team" },
      ctx,
    )) as { id: string; redacted?: boolean };
    expect(out.redacted).toBe(true);
    const row = await tk.t.db.memory.findUniqueOrThrow({ where: { id: out.id } });
    expect(row.text).not.toContain(SECRET);
    expect(row.title).not.toContain(SECRET);
    expect(row.text).toContain("[secret:DEPLOY_TOKEN]");
    expect(JSON.stringify(await caller(tk.actors.admin).memories.list({ q: "token" }))).not.toContain(SECRET);
  });
});
