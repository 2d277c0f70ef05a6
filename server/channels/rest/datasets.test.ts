// REST v1 datasets on a real HTTP server: create, change, items with
// versions, JSONL export (application/x-ndjson) and import with problems by
// line, archive by an admin; bad input is a clear 4xx that changes nothing;
// the audit log names the channel.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { agentPeople, type AgentPeople } from "@/test/helpers/agents";
import { createApiToken, type Actor } from "@/server/identity";
import { startRestServer, type RestTestServer } from "@/test/helpers/rest";
import { testServices } from "@/test/helpers/services";

let tk: TestKernel;
let p: AgentPeople;
let rest: RestTestServer;
const tokens = new Map<Actor, string>();

const api = (as: Actor, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  rest.call(tokens.get(as)!, method, path, body, headers);

const counts = async () => ({
  datasets: await tk.t.db.dataset.count(),
  items: await tk.t.db.datasetItem.count(),
  audit: await tk.t.db.auditEntry.count(),
});
const SCORING = { scorers: [{ kind: "outcome" }, { kind: "calls_at_most", calls: 10 }], threshold: 0.5 };

beforeAll(async () => {
  tk = await createTestKernel();
  p = await agentPeople(tk);
  for (const actor of [p.alphaOperator, p.alphaViewer, p.betaOperator, p.admin])
    tokens.set(actor, (await createApiToken(tk.t.db, { userId: actor.userId, name: "rest" })).token);
  rest = await startRestServer(testServices(tk));
}, 60_000);

afterAll(async () => {
  await rest?.close();
  await tk.cleanup();
});

describe("REST v1 datasets", () => {
  it("creates, changes, fills, exports, imports and archives a dataset", async () => {
    const created = await api(
      p.alphaOperator,
      "POST",
      "/api/v1/datasets",
      { name: "rest-checks", teamId: p.alphaId, scoring: SCORING },
      { "x-rein-channel": "cli" },
    );
    expect(created.status, created.text).toBe(201);
    const id = created.json.id;
    expect(created.json).toMatchObject({ name: "rest-checks", team: { name: "alpha" }, scoring: SCORING, itemCount: 0 });
    expect((await api(p.alphaOperator, "PATCH", `/api/v1/datasets/${id}`, { description: "From REST" })).json.description).toBe(
      "From REST",
    );
    const item = await api(p.alphaOperator, "POST", `/api/v1/datasets/${id}/items`, {
      goal: "Write fizzbuzz",
      agent: "demo-coder",
      expected: { outcome: "succeeded" },
    });
    expect(item.status).toBe(201);
    expect(item.json).toMatchObject({ key: "item-1", version: 1 });
    const edited = await api(p.alphaOperator, "PUT", `/api/v1/datasets/${id}/items/item-1`, { goal: "Write fizzbuzz with tests" });
    expect(edited.json).toMatchObject({ key: "item-1", version: 2 });
    await api(p.alphaOperator, "POST", `/api/v1/datasets/${id}/items`, { key: "gone", goal: "Remove me" });
    expect((await api(p.alphaOperator, "DELETE", `/api/v1/datasets/${id}/items/gone`)).json).toEqual({ ok: true });
    const items = await api(p.alphaViewer, "GET", `/api/v1/datasets/${id}/items`);
    expect(items.json.items.map((i: any) => [i.key, i.version])).toEqual([["item-1", 2]]);
    expect((await api(p.alphaViewer, "GET", "/api/v1/datasets")).json.datasets.map((d: any) => d.name)).toEqual(
      expect.arrayContaining(["demo-coding", "rest-checks"]),
    );

    const exported = await api(p.alphaViewer, "GET", `/api/v1/datasets/${id}/export`);
    expect(exported.status).toBe(200);
    expect(exported.type).toBe("application/x-ndjson; charset=utf-8");
    expect(exported.disposition).toBe('attachment; filename="rest-checks.jsonl"');
    expect(exported.text).toBe(
      '{"key":"item-1","goal":"Write fizzbuzz with tests","agent":"demo-coder","expected":{"outcome":"succeeded"}}\n',
    );
    const imported = await api(p.alphaOperator, "POST", `/api/v1/datasets/${id}/import`, {
      jsonl: `${exported.text}{"goal":"A new one"}\n`,
    });
    expect(imported.json).toEqual({ added: 1, edited: 0, unchanged: 1 });

    expect((await api(p.alphaOperator, "DELETE", `/api/v1/datasets/${id}`)).status).toBe(403);
    expect((await api(p.admin, "DELETE", `/api/v1/datasets/${id}`)).json).toEqual({ ok: true });
    expect((await api(p.alphaViewer, "GET", "/api/v1/datasets")).json.datasets.map((d: any) => d.name)).not.toContain("rest-checks");
    expect(
      (await api(p.alphaViewer, "GET", "/api/v1/datasets?includeArchived=true")).json.datasets.find((d: any) => d.name === "rest-checks")
        .archived,
    ).toBe(true);

    const audit = (await tk.t.db.auditEntry.findMany({ where: { subject: "rest-checks" }, orderBy: { id: "asc" } })).map(
      (a) => `${a.kind} ${a.channel}`,
    );
    expect(audit).toEqual([
      "dataset.created cli",
      "dataset.updated api",
      "dataset.item_added api",
      "dataset.item_edited api",
      "dataset.item_added api",
      "dataset.item_removed api",
      "dataset.imported api",
      "dataset.archived api",
    ]);
  });

  it("answers bad input with a clear 4xx listing each problem, changing nothing", async () => {
    const id = (await api(p.alphaOperator, "POST", "/api/v1/datasets", { name: "rest-bad", teamId: p.alphaId, scoring: SCORING })).json.id;
    const before = await counts();
    const bad = await api(p.alphaOperator, "POST", "/api/v1/datasets", {
      name: "Bad Name",
      teamId: p.alphaId,
      scoring: { scorers: [{ kind: "nope" }] },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe("INVALID_INPUT");
    expect(bad.json.error.issues.map((i: any) => i.path)).toEqual(["name"]);
    const lines = await api(p.alphaOperator, "POST", `/api/v1/datasets/${id}/import`, {
      jsonl: '{"goal":"ok"}\n{}\n{"goal":"x","expected":[]}\n',
    });
    expect(lines.status).toBe(400);
    expect(lines.json.error.issues.map((i: any) => i.message)).toEqual([
      "line 2: goal is required",
      'line 3: expected is an object, e.g. { "outcome": "succeeded" }',
    ]);
    expect((await api(p.alphaOperator, "POST", `/api/v1/datasets/${id}/import`, {})).status).toBe(400);
    expect((await api(p.alphaOperator, "PUT", `/api/v1/datasets/${id}/items/nothing-here`, { goal: "x" })).status).toBe(404);
    expect((await api(p.alphaViewer, "POST", `/api/v1/datasets/${id}/items`, { goal: "x" })).status).toBe(403);
    expect((await api(p.alphaViewer, "POST", "/api/v1/datasets", { name: "viewer-set", teamId: p.alphaId, scoring: SCORING })).status).toBe(
      403,
    );
    expect((await api(p.betaOperator, "GET", `/api/v1/datasets/${id}`)).status).toBe(404);
    expect(await counts()).toEqual(before);
  });
});
