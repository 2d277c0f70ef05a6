// The price table: validation with a clear message per field, an audit row
// for every change, and a PriceBook that forgets a deleted price; on SQLite
// and on PostgreSQL.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ZodError } from "zod";
import type { TestDb } from "@/test/helpers/db";
import { TEST_DATABASES } from "@/test/helpers/databases";
import { listAudit } from "@/server/audit";
import { createUser } from "@/server/identity";
import { Telemetry, TraceSink, deletePrice, listPrices, PriceNotFoundError, setPrice, unpricedModels } from "./index";

describe.each(TEST_DATABASES)("on $name", (database) => {
  let t: TestDb;
  let admin: { userId: string; name: string };

  // One database per backend; each case starts from an empty price table, audit log and rollups.
  beforeAll(async () => {
    t = await database.open();
    const userId = await createUser(t.db, { email: "prices-admin@test.local", password: "test-password-1", role: "admin" });
    admin = { userId, name: (await t.db.user.findUniqueOrThrow({ where: { id: userId } })).name };
  });
  beforeEach(async () => {
    await t.db.modelPrice.deleteMany();
    await t.db.auditEntry.deleteMany();
    await t.db.costRollup.deleteMany();
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  const GOOD = { model: "openai/gpt-4.1", inputPerMTok: 2, outputPerMTok: 8, cacheReadPerMTok: 0.5, cacheWritePerMTok: 0 };

  async function zodMessages(p: Promise<unknown>): Promise<string[]> {
    try {
      await p;
    } catch (err) {
      expect(err).toBeInstanceOf(ZodError);
      return (err as ZodError).issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    }
    throw new Error("expected a validation error");
  }

  describe("setPrice", () => {
    it("creates a price, lists it with who changed it, and audits the change", async () => {
      const saved = await setPrice(t.db, GOOD, admin);
      expect(saved).toMatchObject({ ...GOOD, updatedBy: { id: admin.userId, name: admin.name } });
      expect(await listPrices(t.db)).toEqual([expect.objectContaining({ ...GOOD, updatedBy: { id: admin.userId, name: admin.name } })]);
      const audit = await listAudit(t.db, { kind: "price.updated" });
      expect(audit.entries).toHaveLength(1);
      expect(audit.entries[0]).toMatchObject({
        kind: "price.updated",
        actorId: admin.userId,
        subject: "openai/gpt-4.1",
        channel: "admin",
        detail: {
          action: "create",
          before: null,
          after: { inputPerMTok: 2, outputPerMTok: 8, cacheReadPerMTok: 0.5, cacheWritePerMTok: 0 },
        },
      });
    });

    it("replaces an existing price and records the old one", async () => {
      await setPrice(t.db, GOOD, admin);
      await setPrice(t.db, { ...GOOD, inputPerMTok: 3 }, admin);
      expect((await listPrices(t.db)).map((p) => p.inputPerMTok)).toEqual([3]);
      const [latest] = (await listAudit(t.db, { kind: "price.updated" })).entries;
      expect(latest.detail).toMatchObject({ action: "update", before: { inputPerMTok: 2 }, after: { inputPerMTok: 3 } });
    });

    it("trims the model name and defaults the cache prices to 0", async () => {
      const saved = await setPrice(t.db, { model: "  anthropic/claude-x  ", inputPerMTok: 3, outputPerMTok: 15 }, admin);
      expect(saved).toMatchObject({ model: "anthropic/claude-x", cacheReadPerMTok: 0, cacheWritePerMTok: 0 });
    });

    it.each([
      ["a model without a provider", { ...GOOD, model: "gpt-4.1" }, 'model: must be "<provider>/<model id>"'],
      ["a model with a space", { ...GOOD, model: "openai/gpt 4" }, "model: must be"],
      ["an upper-case provider", { ...GOOD, model: "OpenAI/gpt-4.1" }, "model: must be"],
      ["an empty model", { ...GOOD, model: " " }, "model: is required"],
      ["a negative input price", { ...GOOD, inputPerMTok: -1 }, "inputPerMTok: must be 0 or more"],
      ["a negative cache-write price", { ...GOOD, cacheWritePerMTok: -0.01 }, "cacheWritePerMTok: must be 0 or more"],
      ["NaN", { ...GOOD, outputPerMTok: Number.NaN }, "outputPerMTok:"],
      ["Infinity", { ...GOOD, cacheReadPerMTok: Number.POSITIVE_INFINITY }, "cacheReadPerMTok:"],
      ["a number as text", { ...GOOD, inputPerMTok: "2" }, "inputPerMTok: must be a number"],
      ["an absurd price", { ...GOOD, outputPerMTok: 1e9 }, "outputPerMTok: is at most 100000"],
      ["no output price", { model: "openai/gpt-4.1", inputPerMTok: 1 }, "outputPerMTok: must be a number"],
    ])("refuses %s with a clear message, saving and auditing nothing", async (_what, input, message) => {
      const messages = await zodMessages(setPrice(t.db, input as typeof GOOD, admin));
      expect(messages.join("\n")).toContain(message);
      expect(await t.db.modelPrice.count()).toBe(0);
      expect((await listAudit(t.db, { kind: "price.updated" })).entries).toHaveLength(0);
    });
  });

  describe("deletePrice", () => {
    it("removes the price and audits it; an unknown model is PriceNotFoundError and changes nothing", async () => {
      await setPrice(t.db, GOOD, admin);
      await deletePrice(t.db, "openai/gpt-4.1", admin);
      expect(await listPrices(t.db)).toEqual([]);
      const [latest] = (await listAudit(t.db, { kind: "price.updated" })).entries;
      expect(latest).toMatchObject({ subject: "openai/gpt-4.1", detail: { action: "delete", before: { inputPerMTok: 2 }, after: null } });

      await expect(deletePrice(t.db, "openai/gpt-4.1", admin)).rejects.toBeInstanceOf(PriceNotFoundError);
      await expect(deletePrice(t.db, "openai/gpt-4.1", admin)).rejects.toThrow("There is no price for openai/gpt-4.1");
      expect((await listAudit(t.db, { kind: "price.updated" })).entries).toHaveLength(2);
    });
  });

  describe("the PriceBook after changes", () => {
    it("loadPrices picks up a new price and forgets a deleted one", async () => {
      const telemetry = new Telemetry({ db: t.db, store: { listEvents: async () => [] }, sink: new TraceSink({ write: async () => {} }) });
      await telemetry.loadPrices();
      expect(telemetry.prices.lookup("openai/gpt-4.1")).toMatchObject({ known: false, price: { inputPerMTok: 0 } });
      await setPrice(t.db, GOOD, admin);
      await telemetry.loadPrices();
      expect(telemetry.prices.lookup("openai/gpt-4.1")).toMatchObject({ known: true, price: { inputPerMTok: 2, outputPerMTok: 8 } });
      await deletePrice(t.db, GOOD.model, admin);
      await telemetry.loadPrices();
      expect(telemetry.prices.lookup("openai/gpt-4.1")).toMatchObject({ known: false, price: { inputPerMTok: 0 } });
    });
  });

  describe("unpricedModels", () => {
    it("lists models with calls but no price, never the scripted ones", async () => {
      const row = {
        day: "2026-01-02",
        teamId: "",
        workflowId: "w",
        calls: 1,
        inputTokens: 10,
        outputTokens: 1,
        cachedInputTokens: 0,
        costUsd: 0,
      };
      await t.db.costRollup.createMany({
        data: [
          { ...row, model: "openai/gpt-4.1" },
          { ...row, model: "anthropic/claude-x" },
          { ...row, model: "scripted/demo-coder" },
        ],
      });
      expect(await unpricedModels(t.db)).toEqual(["anthropic/claude-x", "openai/gpt-4.1"]);
      await setPrice(t.db, GOOD, admin);
      expect(await unpricedModels(t.db)).toEqual(["anthropic/claude-x"]);
      expect(await unpricedModels(t.db, { day: { gte: "2026-02-01" } })).toEqual([]);
    });
  });
});
