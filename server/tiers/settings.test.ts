// Tier settings: defaults before anything is saved, validation with a message
// per field, an audit row naming what changed, and a broken stored value
// falling back to the defaults.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ZodError } from "zod";
import { createTestDb, type TestDb } from "@/test/helpers/db";
import { listAudit } from "@/server/audit";
import { SETTING_TIERS, defaultTierSettings, readTierSettings, saveTierSettings, type TierSettingsInput } from "./settings";

let t: TestDb;
const admin = { userId: "admin-1", name: "Ada Admin" };

beforeEach(async () => {
  t = await createTestDb();
});
afterEach(async () => {
  await t.cleanup();
});

async function issues(p: Promise<unknown>): Promise<string[]> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ZodError);
    return (err as ZodError).issues.map((i) => `${i.path.join(".")}: ${i.message}`);
  }
  throw new Error("expected a validation error");
}

function edited(change: (s: ReturnType<typeof defaultTierSettings>) => void): TierSettingsInput {
  const s = defaultTierSettings();
  change(s);
  return s;
}

describe("tier settings", () => {
  it("start from the defaults: thresholds 0.30/0.55/0.70/0.88, T2 asks an operator, T3 and T4 off; pool sizes from the environment", async () => {
    const { settings, saved } = await readTierSettings(t.db, defaultTierSettings({ terminal: 3, desktop: 0 }));
    expect(saved).toBe(false);
    expect([settings.T0.threshold, settings.T1.threshold, settings.T2.threshold, settings.T3.threshold, settings.T4.threshold]).toEqual([
      0, 0.3, 0.55, 0.7, 0.88,
    ]);
    expect(settings.T2).toMatchObject({ enabled: true, consentRole: "operator", idleTimeoutMin: 10, poolSize: 0 });
    expect(settings.T1.poolSize).toBe(3);
    expect(settings.T3.enabled).toBe(false);
    expect(settings.T4.enabled).toBe(false);
  });

  it("are saved, read back, and audited as tiers.updated with only what changed", async () => {
    const input = edited((s) => {
      s.T2.threshold = 0.6;
      s.T2.consentRole = null;
      s.T2.idleTimeoutMin = 5;
    });
    await saveTierSettings(t.db, input, admin);
    const { settings, saved } = await readTierSettings(t.db);
    expect(saved).toBe(true);
    expect(settings.T2).toMatchObject({ threshold: 0.6, consentRole: null, idleTimeoutMin: 5 });
    const audit = await listAudit(t.db, { kind: "tiers.updated" });
    expect(audit.entries).toHaveLength(1);
    expect(audit.entries[0]).toMatchObject({ actorId: "admin-1", actorName: "Ada Admin", channel: "admin", subject: "compute tiers" });
    expect(audit.entries[0].detail).toEqual({
      changes: { "T2.threshold": [0.55, 0.6], "T2.consentRole": ["operator", null], "T2.idleTimeoutMin": [10, 5] },
    });
  });

  it("refuse bad values, each with its path and reason, and store nothing", async () => {
    const bad = edited((s) => {
      s.T2.threshold = 1.5;
      s.T1.poolSize = 2.5;
      s.T2.idleTimeoutMin = 0;
      s.T2.costPerHourUsd = -1;
      (s.T2 as { consentRole: unknown }).consentRole = "viewer";
      s.T3.enabled = true;
      s.T0.enabled = false;
      s.T4.poolSize = 2;
    });
    expect(await issues(saveTierSettings(t.db, bad, admin))).toEqual(
      expect.arrayContaining([
        "T2.threshold: is at most 1",
        "T1.poolSize: must be a whole number",
        "T2.idleTimeoutMin: is at least 1 minute",
        "T2.costPerHourUsd: cannot be negative",
        "T2.consentRole: must be one of operator, approver, admin, or null for no consent",
      ]),
    );
    // The cross-field rules run once the fields are valid.
    const refine = edited((s) => {
      s.T4.enabled = true;
      s.T0.enabled = false;
      s.T4.poolSize = 2;
    });
    expect(await issues(saveTierSettings(t.db, refine, admin))).toEqual([
      "T4.poolSize: is 0: T4 keeps no warm environments",
      "T0.enabled: cannot be off: every run can fall back to T0",
    ]);
    expect(await t.db.setting.findUnique({ where: { key: SETTING_TIERS } })).toBeNull();
    expect((await listAudit(t.db, { kind: "tiers.updated" })).entries).toHaveLength(0);
  });

  it("refuse unknown keys and missing tiers", async () => {
    const extra = { ...defaultTierSettings(), T5: defaultTierSettings().T2 } as unknown as TierSettingsInput;
    expect((await issues(saveTierSettings(t.db, extra, admin))).join("\n")).toMatch(/T5/);
    const { T4: _dropped, ...missing } = defaultTierSettings();
    expect((await issues(saveTierSettings(t.db, missing as unknown as TierSettingsInput, admin))).join("\n")).toMatch(/^T4/);
  });

  it("fall back to the defaults when the stored value is broken, and fill a tier's missing fields from them", async () => {
    await t.db.setting.create({ data: { key: SETTING_TIERS, value: "{not json" } });
    expect(await readTierSettings(t.db)).toEqual({ settings: defaultTierSettings(), saved: false });
    await t.db.setting.update({ where: { key: SETTING_TIERS }, data: { value: JSON.stringify({ T2: { threshold: 0.65 } }) } });
    const { settings, saved } = await readTierSettings(t.db);
    expect(saved).toBe(true);
    expect(settings.T2).toEqual({ ...defaultTierSettings().T2, threshold: 0.65 });
    await t.db.setting.update({ where: { key: SETTING_TIERS }, data: { value: JSON.stringify({ T2: { threshold: 7 } }) } });
    expect((await readTierSettings(t.db)).settings).toEqual(defaultTierSettings());
  });
});
