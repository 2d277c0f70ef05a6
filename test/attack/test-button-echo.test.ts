// Attack suite, issue class 10: an admin's Test of a provider or of the OTLP
// endpoint reaches whatever listens at the URL they typed (another service
// on the host, say). What comes back is the status and a provider-level
// message, never that service's body or reason phrase. A model list far
// larger than any provider's is not read whole.
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

let hugeSent = 0;
const HUGE_BYTES = 30_000_000;

/** A model list of 30 MB, written as the client reads it: how much went out shows how much was read. */
function sendHuge(res: http.ServerResponse) {
  res.writeHead(200, { "content-type": "application/json" });
  const item = Buffer.from('{"id":"model-x"},'.repeat(4000));
  res.write('{"data":[');
  const more = () => {
    while (hugeSent < HUGE_BYTES) {
      hugeSent += item.length;
      if (!res.write(item)) return void res.once("drain", more);
    }
    res.end('{"id":"last"}]}');
  };
  res.on("error", () => {});
  more();
}

beforeAll(async () => {
  // A service that is not a provider: it answers everything with its own private data.
  service = http.createServer((req, res) => {
    if (req.url?.includes("/huge")) return sendHuge(res);
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

  it("a provider's Test against a 30 MB model list reads no more than its limit of it", async () => {
    const keyring = memoryKeyring();
    const catalog = new ModelCatalog({ db: t.db, keyring });
    const admin = new ModelAdmin({ db: t.db, keyring, catalog, setPrice: async () => {}, testTimeoutMs: 20_000 });
    const result = await admin.testProvider({ kind: "openai-compatible", baseUrl: `${url}/huge` });
    expect(result.ok).toBe(false);
    expect(result.error?.message).toMatch(/model list larger than 4 MiB/);
    // What the socket buffers hold aside, the rest of the 30 MB was never sent.
    expect(hugeSent).toBeLessThan(HUGE_BYTES / 2);
  });

  it.each(["/s404", "/s500"])("the OTLP endpoint's Test against a service answering %s", async (path) => {
    const result = await testOtlpEndpoint(t.db, undefined, { url: `${url}${path}/v1/traces`, headers: {} });
    expect(result.ok).toBe(false);
    expect(result.message).not.toContain(CANARY);
    expect(result.message).toMatch(/HTTP \d{3}/);
  });
});
