// Attack suite: Evals datasets. A member of team B cannot read, export, edit,
// remove from, import into, archive or add a run to team A's dataset by id,
// through tRPC or REST; it looks like no dataset at all. Hostile JSONL (a
// huge line, deeply nested JSON, 10,001 lines) is refused before it is
// parsed in full, and imports nothing.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callerFor, testServices } from "@/test/helpers/services";
import { createRestHandler } from "@/server/channels";
import { createApiToken, type Actor } from "@/server/identity";
import { createRun } from "@/server/kernel";
import { DatasetError, importJsonl } from "@/server/evals";
import { createTestKernel, type TestKernel } from "../helpers/kernel";
import { agentPeople, type AgentPeople } from "../helpers/agents";
import { trpcError } from "../helpers/trpc";

let tk: TestKernel;
let p: AgentPeople;
let server: http.Server;
let base: string;
let betaToken: string;
let alphaToken: string;
let datasetId: string;
let betaRunId: string;
const SECRET_GOAL = "Team A's private benchmark: rotate the vault keys first.";

const caller = (actor: Actor) => callerFor(tk, actor);
/** What must not change: A's dataset, its items and the audit log. */
const snapshot = async () => ({
  dataset: await tk.t.db.dataset.findUnique({ where: { id: datasetId } }),
  items: await tk.t.db.datasetItem.findMany({ where: { datasetId }, orderBy: [{ key: "asc" }, { version: "asc" }] }),
  audit: await tk.t.db.auditEntry.count(),
});

beforeAll(async () => {
  tk = await createTestKernel();
  p = await agentPeople(tk);
  const alpha = caller(p.alphaOperator);
  datasetId = (await alpha.evals.createDataset({ name: "vault-checks", teamId: p.alphaId, scoring: { scorers: [{ kind: "outcome" }] } }))
    .id;
  await alpha.evals.addItem({ datasetId, key: "vault", goal: SECRET_GOAL });
  const run = await createRun(tk.kernel, { goal: "Beta's run", agent: "demo-coder", scenario: [{ text: "beta" }] }, p.betaOperator);
  await tk.settle(run.id);
  betaRunId = run.id;
  betaToken = (await createApiToken(tk.t.db, { userId: p.betaOperator.userId, name: "beta" })).token;
  alphaToken = (await createApiToken(tk.t.db, { userId: p.alphaOperator.userId, name: "alpha" })).token;
  const handler = createRestHandler(testServices(tk), { authSecret: "test-secret" });
  server = http.createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await new Promise((r) => server?.close(r));
  await tk?.cleanup();
});

describe("another team's dataset, by id", () => {
  it("through tRPC: nothing to read, export, edit, remove, import into, add a run to or archive", async () => {
    const before = await snapshot();
    const beta = caller(p.betaOperator);
    expect((await beta.evals.datasets.list({ includeArchived: true })).map((d) => d.id)).not.toContain(datasetId);
    const calls: Array<[string, Promise<unknown>]> = [
      ["get", beta.evals.datasets.get({ id: datasetId })],
      ["items", beta.evals.items({ datasetId })],
      ["itemHistory", beta.evals.itemHistory({ datasetId, key: "vault" })],
      ["exportJsonl", beta.evals.exportJsonl({ datasetId })],
      ["updateDataset", beta.evals.updateDataset({ id: datasetId, description: "mine now" })],
      ["addItem", beta.evals.addItem({ datasetId, goal: "planted" })],
      ["editItem", beta.evals.editItem({ datasetId, key: "vault", goal: "overwritten" })],
      ["removeItem", beta.evals.removeItem({ datasetId, key: "vault" })],
      ["importJsonl", beta.evals.importJsonl({ datasetId, jsonl: '{"key":"vault","goal":"overwritten"}\n' })],
      ["addFromRun", beta.evals.addFromRun({ datasetId, runId: betaRunId })],
    ];
    for (const [what, call] of calls) {
      const err = await trpcError(call);
      expect(err.code, what).toBe("NOT_FOUND");
      expect(err.message, what).toBe(`There is no dataset ${datasetId}`);
    }
    expect(await snapshot()).toEqual(before);
  });

  it("through REST: every route answers 404 as for an id that does not exist, and leaks nothing", async () => {
    const before = await snapshot();
    const send = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${betaToken}`, "content-type": "application/json" },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, text: await res.text() };
    };
    const d = `/api/v1/datasets/${datasetId}`;
    for (const [method, path, body] of [
      ["GET", d],
      ["PATCH", d, { description: "mine now" }],
      ["GET", `${d}/items`],
      ["POST", `${d}/items`, { goal: "planted" }],
      ["PUT", `${d}/items/vault`, { goal: "overwritten" }],
      ["DELETE", `${d}/items/vault`],
      ["GET", `${d}/export`],
      ["POST", `${d}/import`, { jsonl: '{"key":"vault","goal":"overwritten"}\n' }],
    ] as Array<[string, string, unknown?]>) {
      const r = await send(method, path, body);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.text).not.toContain("vault-checks");
      expect(r.text).not.toContain(SECRET_GOAL);
    }
    const list = await send("GET", "/api/v1/datasets?includeArchived=true");
    expect(list.text).not.toContain(datasetId);
    expect(await snapshot()).toEqual(before);
  });
});

describe("hostile JSONL", () => {
  const importAs = (jsonl: string) =>
    fetch(`${base}/api/v1/datasets/${datasetId}/import`, {
      method: "POST",
      headers: { authorization: `Bearer ${alphaToken}`, "content-type": "application/json" },
      body: JSON.stringify({ jsonl }),
    });

  it.each([
    ["a huge line", () => `{"goal":"${"A".repeat(4 * 1024 * 1024)}"}\n`, 400, "line 1: the line is longer than 256 KiB"],
    [
      "deeply nested JSON",
      () => `{"goal":"g","expected":{"x":${"[".repeat(100_000)}${"]".repeat(100_000)}}}\n`,
      400,
      "line 1: the JSON is nested deeper than 32 levels",
    ],
    ["10,001 lines", () => Array.from({ length: 10_001 }, (_, i) => `{"goal":"g${i}"}`).join("\n"), 413, "more than 10,000 lines"],
    ["a file over 5 MB", () => `${'{"goal":"g"}\n'.repeat(500_000)}`, 413, "larger than 5 MB"],
  ])("refuses %s over REST with a clear error, importing nothing", async (_what, make, status, message) => {
    const before = await snapshot();
    const res = await importAs(make());
    expect(res.status).toBe(status);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain(message);
    expect(await snapshot()).toEqual(before);
  });

  it("one bad line among thousands of good ones imports nothing, and the bad line is named", async () => {
    const before = await snapshot();
    const lines = Array.from({ length: 9_999 }, (_, i) => `{"goal":"g${i}"}`);
    lines.splice(4_321, 0, '{"goal":"x","scenario":{"turns":[{"text":"a"},{"text":"b"}]}}');
    try {
      await importJsonl(tk.t.db, { actor: p.alphaOperator, channel: "api" }, datasetId, lines.join("\n"));
      throw new Error("expected a refusal");
    } catch (err) {
      expect(err).toBeInstanceOf(DatasetError);
      expect((err as DatasetError).problems.map((x) => x.message)).toEqual([
        expect.stringMatching(/^line 4322: scenario turns\.0: turn 1 has no tool calls/),
      ]);
    }
    expect(await snapshot()).toEqual(before);
  });
});
