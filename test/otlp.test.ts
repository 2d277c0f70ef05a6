// OTLP/HTTP export to a collector: a local HTTP server in the test receives the
// same spans Rein stores (docs/traces-and-costs.md#settings--telemetry).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun } from "@/server/kernel";
import { applyOtlpSetting, listRunSpans, saveOtlpSetting, testOtlpEndpoint } from "@/server/telemetry";
import { createTestKernel, type TestKernel } from "./helpers/kernel";
import { waitFor } from "./helpers/wait";

interface Received {
  headers: http.IncomingHttpHeaders;
  spans: Array<{
    name: string;
    traceId: string;
    spanId: string;
    parentSpanId?: string;
    attributes: Array<{ key: string; value: Record<string, unknown> }>;
  }>;
}

let tk: TestKernel;
let collector: http.Server;
let url: string;
const received: Received[] = [];
let failNext = 0;

beforeAll(async () => {
  collector = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      if (failNext > 0) {
        failNext--;
        res.writeHead(500).end("collector down");
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      const spans = body.resourceSpans.flatMap((r: any) => r.scopeSpans.flatMap((s: any) => s.spans));
      received.push({ headers: req.headers, spans });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => collector.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(collector.address() as AddressInfo).port}/v1/traces`;
  tk = await createTestKernel({ telemetry: true, secrets: true });
}, 60_000);

afterAll(async () => {
  await tk.cleanup();
  collector.close();
});

describe("OTLP/HTTP export", () => {
  it("sends every ended span of a run to the collector, with the headers configured", async () => {
    await saveOtlpSetting(
      tk.t.db,
      tk.keyring,
      { url, headers: { "x-collector-token": "t0ken" } },
      { id: tk.actors.admin.userId, name: "Admin" },
    );
    await applyOtlpSetting(tk.t.db, tk.telemetry!.sink, tk.keyring);
    const run = await createRun(tk.kernel, { goal: "Write fizzbuzz", agent: "demo-coder" }, tk.actors.operator);
    expect(await tk.settle(run.id)).toBe("succeeded");
    await tk.telemetry!.sink.flush();
    const stored = (await listRunSpans(tk.t.db, run.id)).spans;
    const exported = () => new Map(received.flatMap((r) => r.spans).map((s) => [s.spanId, s]));
    await waitFor(() => stored.every((s) => exported().has(s.spanId)), "every stored span at the collector");
    const runSpan = exported().get(stored.find((s) => s.kind === "run")!.spanId)!;
    expect(runSpan.name).toBe("run demo-coder");
    const attrs = Object.fromEntries(runSpan.attributes.map((a) => [a.key, Object.values(a.value)[0]]));
    expect(attrs).toMatchObject({ "rein.workflow_id": "demo-coder", "rein.run_id": run.id });
    expect(received[0].headers["x-collector-token"]).toBe("t0ken");
    // Each span once, even though the run span was written several times while it was open.
    const all = received.flatMap((r) => r.spans.map((s) => s.spanId));
    expect(new Set(all).size).toBe(all.length);
    const audit = await tk.t.db.auditEntry.findFirstOrThrow({ where: { kind: "settings.updated" } });
    expect(audit.detail).not.toContain("t0ken");
  });

  it("Test says whether the collector took a span, with the reason when it did not", async () => {
    expect(await testOtlpEndpoint(tk.t.db, tk.keyring, { url, headers: {} })).toMatchObject({ ok: true });
    failNext = 1;
    const failed = await testOtlpEndpoint(tk.t.db, tk.keyring, { url, headers: {} });
    expect(failed.ok).toBe(false);
    expect(failed.message).toContain(`OTLP export to ${url} failed`);
    await expect(testOtlpEndpoint(tk.t.db, tk.keyring, { url: "ftp://collector/v1/traces", headers: {} })).rejects.toThrow(
      /http:\/\/ or https:\/\//,
    );
  });
});
