// The typed client (lib/rest-client.ts: openapi-fetch over the types
// openapi-typescript generates from /api/v1/openapi.json) against the real
// REST handler: a program written from the description compiles, and its
// calls reach the routes with the shapes the description promised.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@/server/identity";
import { restClient, type RestClient } from "@/lib/rest-client";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { waitFor } from "@/test/helpers/wait";
import { createRestHandler } from "./index";
import { testServices } from "@/test/helpers/services";

let tk: TestKernel;
let server: http.Server;
let client: RestClient;
let viewer: RestClient;

beforeAll(async () => {
  tk = await createTestKernel();
  const rest = createRestHandler(testServices(tk), { authSecret: "a-test-auth-secret-of-more-than-32-characters" });
  server = http.createServer((req, res) => void rest(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const operator = await createApiToken(tk.t.db, { userId: tk.users.operator, name: "client" });
  const seer = await createApiToken(tk.t.db, { userId: tk.users.viewer, name: "client" });
  client = restClient({ baseUrl, token: operator.token, channel: "cli" });
  viewer = restClient({ baseUrl, token: seer.token });
});

afterAll(async () => {
  if (server) {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }
  await tk?.cleanup();
});

describe("the typed REST client", () => {
  it("launches a run, reads it and its events, with typed paths, bodies and answers", async () => {
    const created = await client.POST("/api/v1/runs", { body: { goal: "Write fizzbuzz", agent: "demo-coder" } });
    expect(created.response.status).toBe(201);
    const run = created.data!;
    expect(run.agentName).toBe("demo-coder");
    expect(run.scripted).toBe(true);

    const done = await waitFor(async () => {
      const { data } = await client.GET("/api/v1/runs/{id}", { params: { path: { id: run.id } } });
      return data && ["succeeded", "failed", "canceled"].includes(data.status) ? data : null;
    }, "the run to end");
    expect(done.status).toBe("succeeded");
    // Dates travel as ISO 8601 text.
    expect(typeof done.createdAt).toBe("string");

    const page = await client.GET("/api/v1/runs/{id}/events", { params: { path: { id: run.id }, query: { after: 2, limit: 3 } } });
    expect(page.data!.events.map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(page.data!.cursor).toBe(5);

    const list = await viewer.GET("/api/v1/runs", { params: { query: { limit: 5 } } });
    expect(list.data!.runs.some((r) => r.id === run.id)).toBe(true);
  });

  it("reads agents and datasets, and gets the one error shape with its code", async () => {
    const agents = await viewer.GET("/api/v1/agents");
    expect(agents.response.status).toBe(200);
    expect(JSON.stringify(agents.data)).toContain("demo-coder");

    const datasets = await viewer.GET("/api/v1/datasets");
    expect(datasets.response.status).toBe(200);

    const refused = await viewer.POST("/api/v1/runs/{id}/cancel", { params: { path: { id: "no-such-run" } } });
    expect(refused.response.status).toBe(403);
    expect(refused.error?.error.code).toBe("FORBIDDEN");

    const missing = await client.GET("/api/v1/runs/{id}", { params: { path: { id: "no-such-run" } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error?.error.code).toBe("NOT_FOUND");

    const bad = await client.POST("/api/v1/runs", { body: { goal: "", agent: "demo-coder" } });
    expect(bad.response.status).toBe(400);
    expect(bad.error?.error.code).toBe("INVALID_INPUT");
    expect(bad.error?.error.issues?.[0].path).toBe("goal");
  });
});
