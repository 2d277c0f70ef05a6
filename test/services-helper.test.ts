// The tests' Services object itself (test/helpers/services.ts): a service a
// test did not wire fails at its first use, saying how to wire it, while
// awaiting, printing or comparing it stays safe; what the test passes is used
// as it is, and a partial self-improvement runtime fails only on what is missing.
import util from "node:util";
import { describe, expect, it } from "vitest";
import type { Db } from "@/server/db";
import { testServices } from "./helpers/services";

const db = {} as Db;

describe("testServices", () => {
  it("fails on the first use of a service the test did not wire, naming how to wire it", () => {
    const services = testServices({ db });
    expect(services.db).toBe(db);
    expect(() => services.hitl.broker).toThrow(
      "testServices: hitl is not wired in this test; pass it in overrides or create the test kernel with { hitl: true }",
    );
    expect(() => services.keyring.current).toThrow("or create the test kernel with { secrets: true }");
    expect(() => services.mcp.list).toThrow("testServices: mcp is not wired in this test; pass it in overrides");
    expect(() => services.kernel.store).toThrow("create a test kernel (createTestKernel)");
  });

  it("lets a stand-in be awaited, printed and compared", async () => {
    const { webhooks } = testServices({ db });
    expect(await Promise.resolve(webhooks)).toBe(webhooks);
    expect(util.inspect(webhooks)).toBe("{}");
    expect(JSON.stringify({ webhooks })).toBe('{"webhooks":{}}');
    expect(`${String(Object.keys(webhooks))}`).toBe("");
    expect({ webhooks }).toEqual({ webhooks });
  });

  it("uses what the test passes, and fails only on the members of improve it left out", () => {
    const experiments = { wake() {} };
    const services = testServices({ db }, { experiments, improve: { live: { unload() {} }, changes: null } });
    expect(services.experiments).toBe(experiments);
    expect(() => services.improve.live.unload("x")).not.toThrow();
    expect(() => services.improve.skills).toThrow("testServices: improve.skills is not wired in this test; pass it in overrides.improve");
    expect(() => services.improve.changes).toThrow("build the Improve with its change requests (Improve.withChanges)");
  });
});
