// The OTLP export setting's headers
// (docs/traces-and-costs.md#settings--telemetry): sealed at rest, masked in
// views, kept / replaced / removed on save like a provider key, and rows saved
// in clear by an older version still read and sealed at start.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { memoryKeyring } from "@/server/secrets";
import { createTestDb, type TestDb } from "@/test/helpers/db";
import { applyOtlpSetting, otlpSetting, saveOtlpSetting, sealStoredOtlpHeaders, SETTING_OTLP } from "./otlp-settings";
import type { OtlpSpanExporter } from "./otlp";
import type { TraceSink } from "./trace-sink";

const URL_A = "http://127.0.0.1:9/v1/traces";
const actor = { id: "admin-1", name: "Admin" };
const keyring = memoryKeyring();
let t: TestDb;

beforeAll(async () => {
  t = await createTestDb();
});
afterAll(async () => t?.cleanup());
beforeEach(async () => {
  await t.db.setting.deleteMany({ where: { key: SETTING_OTLP } });
});

/** The headers the exporter would send, in clear. */
async function exported(ring = keyring, errors: string[] = []): Promise<Record<string, string> | undefined> {
  let exporter: OtlpSpanExporter | null = null;
  const sink = { setExporter: (e: OtlpSpanExporter | null) => (exporter = e) } as unknown as TraceSink;
  await applyOtlpSetting(t.db, sink, ring, { error: (m) => errors.push(m) }, {});
  return (exporter as OtlpSpanExporter | null)?.options.headers;
}

const rawRow = async () => (await t.db.setting.findUniqueOrThrow({ where: { key: SETTING_OTLP } })).value;

describe("OTLP headers at rest", () => {
  it("a value left untouched (null) stays, a new one replaces, a header left out is removed", async () => {
    await saveOtlpSetting(
      t.db,
      keyring,
      { url: URL_A, headers: { authorization: "Bearer first-token-0001", "x-team": "team-value-0002" } },
      actor,
    );
    await saveOtlpSetting(t.db, keyring, { url: URL_A, headers: { authorization: null, "x-new": "new-value-0003" } }, actor);
    expect(await exported()).toEqual({ authorization: "Bearer first-token-0001", "x-new": "new-value-0003" });
    await saveOtlpSetting(t.db, keyring, { url: URL_A, headers: { authorization: "Bearer second-token-0004" } }, actor);
    expect(await exported()).toEqual({ authorization: "Bearer second-token-0004" });
    expect(await rawRow()).not.toMatch(/token|value-000/);
    const view = await otlpSetting(t.db, keyring, {});
    expect(view?.headers).toEqual([{ name: "authorization", masked: "…0004" }]);
  });

  it("keeping a header that was never saved is a clear error, and the saved setting stays", async () => {
    await saveOtlpSetting(t.db, keyring, { url: URL_A, headers: { authorization: "Bearer kept-token-0005" } }, actor);
    await expect(saveOtlpSetting(t.db, keyring, { url: URL_A, headers: { "x-other": null } }, actor)).rejects.toThrow(
      /"x-other" has no saved value to keep; type its value/,
    );
    expect(await exported()).toEqual({ authorization: "Bearer kept-token-0005" });
  });

  it.each([
    [{ "bad name": "v" }, /header name is letters, digits/],
    [{ authorization: "a\r\nx-injected: 1" }, /no line breaks/],
    [{ authorization: "" }, /header value is required/],
    [{ authorization: "x".repeat(4001) }, /at most 4000 characters/],
  ])("refuses the headers %j", async (headers, message) => {
    await expect(saveOtlpSetting(t.db, keyring, { url: URL_A, headers }, actor)).rejects.toThrow(message);
    expect(await t.db.setting.count({ where: { key: SETTING_OTLP } })).toBe(0);
  });

  it("a row saved in clear by an older version still works, and is sealed at start", async () => {
    await t.db.setting.create({
      data: {
        key: SETTING_OTLP,
        value: JSON.stringify({ url: URL_A, headers: { authorization: "Bearer legacy-token-0006" } }),
        updatedById: actor.id,
      },
    });
    expect(await exported()).toEqual({ authorization: "Bearer legacy-token-0006" });
    expect((await otlpSetting(t.db, keyring, {}))?.headers).toEqual([{ name: "authorization", masked: "…0006" }]);
    expect(await sealStoredOtlpHeaders(t.db, keyring)).toBe(true);
    expect(await rawRow()).not.toContain("legacy-token");
    expect(await exported()).toEqual({ authorization: "Bearer legacy-token-0006" });
    expect(await sealStoredOtlpHeaders(t.db, keyring)).toBe(false);
  });

  it("a value sealed with another key is not sent, shown as unreadable, and reported without a value", async () => {
    await saveOtlpSetting(t.db, keyring, { url: URL_A, headers: { authorization: "Bearer other-key-token-0007" } }, actor);
    const errors: string[] = [];
    expect(await exported(memoryKeyring(), errors)).toEqual({});
    expect(errors.join("\n")).toMatch(/"authorization" cannot be opened/);
    expect(errors.join("\n")).not.toContain("other-key-token");
    expect((await otlpSetting(t.db, memoryKeyring(), {}))?.headers).toEqual([{ name: "authorization", masked: "••••" }]);
  });
});
