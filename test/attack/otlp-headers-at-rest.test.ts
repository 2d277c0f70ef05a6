// Attack suite, issue class 13: the OTLP export headers carry a collector's credentials. Their
// values are sealed in the Setting row, never returned to an admin's page or
// the API, never in an audit entry or a failure message, and still reach the
// collector itself.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callerFor } from "@/test/helpers/services";
import { createRun } from "@/server/kernel";
import { createTestKernel, type TestKernel } from "../helpers/kernel";
import { waitFor } from "../helpers/wait";

const CANARY = "otlp-header-canary-5c1e9b2d7a";

let tk: TestKernel;
let collector: http.Server;
let base: string;
const seen: Array<{ url: string; authorization: string | undefined }> = [];

beforeAll(async () => {
  // A collector that records who called it; paths with /fail answer 500.
  collector = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      seen.push({ url: req.url ?? "", authorization: req.headers.authorization });
      res.writeHead(req.url?.includes("/fail") ? 500 : 200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => collector.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  tk = await createTestKernel({ telemetry: true, secrets: true });
}, 60_000);

afterAll(async () => {
  await tk?.cleanup();
  collector?.close();
});

const admin = () => callerFor(tk, tk.actors.admin);

describe("OTLP header values are secrets", () => {
  it("are neither in the database row, nor the audit log, nor what an admin reads back", async () => {
    await admin().telemetrySettings.setOtlp({ otlp: { url: `${base}/v1/traces`, headers: { authorization: `Bearer ${CANARY}` } } });
    const rows = await tk.t.db.$queryRawUnsafe<Array<{ value: string }>>(`SELECT value FROM "Setting" WHERE key = 'telemetry.otlp'`);
    expect(rows).toHaveLength(1);
    expect(rows[0].value).toContain(base);
    expect(rows[0].value).not.toContain(CANARY);
    const audit = await tk.t.db.auditEntry.findMany({ where: { subject: "telemetry.otlp" }, select: { detail: true } });
    expect(JSON.stringify(audit)).not.toContain(CANARY);
    const shown = await admin().telemetrySettings.get();
    expect(shown.otlp?.headers.map((h) => h.name)).toEqual(["authorization"]);
    expect(JSON.stringify(shown)).not.toContain(CANARY);
    expect(JSON.stringify(shown)).not.toContain(CANARY.slice(0, 12));
  });

  it("still reach the collector, also after a save that did not retype them", async () => {
    // The form sends null for a header the admin left as it was.
    await admin().telemetrySettings.setOtlp({ otlp: { url: `${base}/v1/traces`, headers: { authorization: null } } });
    const row = await tk.t.db.setting.findUniqueOrThrow({ where: { key: "telemetry.otlp" } });
    expect(row.value).not.toContain(CANARY);
    const run = await createRun(tk.kernel, { goal: "Write fizzbuzz", agent: "demo-coder" }, tk.actors.operator);
    expect(await tk.settle(run.id)).toBe("succeeded");
    await tk.telemetry!.sink.flush();
    await waitFor(
      () => seen.some((r) => r.url === "/v1/traces" && r.authorization === `Bearer ${CANARY}`),
      "a span at the collector with the saved header",
    );
  });

  it("a failed export's message does not echo a header value", async () => {
    const result = await admin().telemetrySettings.testOtlp({
      url: `${base}/fail/${CANARY}/v1/traces`,
      headers: { authorization: CANARY },
    });
    expect(result.ok).toBe(false);
    expect(result.message).toMatch(/HTTP 500/);
    expect(result.message).not.toContain(CANARY);
  });

  it("a saved value is sent only to the saved endpoint", async () => {
    await expect(
      admin().telemetrySettings.testOtlp({ url: `${base}/elsewhere/v1/traces`, headers: { authorization: null } }),
    ).rejects.toThrow(/only sent to the saved endpoint/);
    expect(seen.some((r) => r.url.startsWith("/elsewhere"))).toBe(false);
  });
});
