// Attack suite, issue class 10: an admin's Test of a provider or of the OTLP
// endpoint reaches whatever listens at the URL they typed (another service
// on the host, say). What comes back is the status and a provider-level
// message, never that service's body or reason phrase.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModelAdmin, ModelCatalog } from "@/server/models";
import { testOtlpEndpoint } from "@/server/telemetry";
import { memoryKeyring } from "@/server/secrets";
import { createTestDb, type TestDb } from "../helpers/db";

const CANARY = "internal-service-canary-7f3a";

let service: http.Server;
let url: string;
let t: TestDb;

beforeAll(async () => {
  // A service that is not a provider: it answers everything with its own private data.
  service = http.createServer((req, res) => {
    const status = req.url?.includes("/s500") ? 500 : req.url?.includes("/s401") ? 401 : 404;
    res.writeHead(status, `${CANARY} reason`, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message: `${CANARY} in the body` }, message: CANARY }));
  });
  await new Promise<void>((r) => service.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
  t = await createTestDb();
});

afterAll(async () => {
  service.close();
  await t.cleanup();
});

describe("Test never reads back what answers", () => {
  it.each(["/s404", "/s500", "/s401"])("a provider's Test against a service answering %s", async (path) => {
    const keyring = memoryKeyring();
    const catalog = new ModelCatalog({ db: t.db, keyring });
    const admin = new ModelAdmin({ db: t.db, keyring, catalog, setPrice: async () => {}, testTimeoutMs: 5000 });
    const result = await admin.testProvider({ kind: "openai-compatible", baseUrl: `${url}${path}` });
    expect(result.ok).toBe(false);
    expect(JSON.stringify(result)).not.toContain(CANARY);
    expect(result.error?.message).toMatch(/HTTP \d{3}/);
  });

  it.each(["/s404", "/s500"])("the OTLP endpoint's Test against a service answering %s", async (path) => {
    const result = await testOtlpEndpoint(t.db, undefined, { url: `${url}${path}/v1/traces`, headers: {} });
    expect(result.ok).toBe(false);
    expect(result.message).not.toContain(CANARY);
    expect(result.message).toMatch(/HTTP \d{3}/);
  });
});
