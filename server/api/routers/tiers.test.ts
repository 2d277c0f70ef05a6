// tiers.* through createCaller on a real SQLite database: everyone reads,
// admins save (validated, audited), the running tiers' availability is shown
// and their warm pools follow a save.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listAudit } from "@/server/audit";
import type { DomainError } from "@/server/errors";
import { createUser, loadActor, type Actor } from "@/server/identity";
import { defaultTierSettings, type TierRuntime, type TierSettings } from "@/server/tiers";
import { createTestDb, type TestDb } from "@/test/helpers/db";
import { callerFor } from "@/test/helpers/services";
import { trpcError } from "@/test/helpers/trpc";

let t: TestDb;
let admin: Actor;
let viewer: Actor;
const applied: TierSettings[] = [];
const runtime: TierRuntime = {
  defaults: defaultTierSettings({ terminal: 2, desktop: 1 }),
  availability: () => ({
    T0: null,
    T1: null,
    T2: "Xvfb is not installed",
    T3: null,
    T4: "this server has no device connections",
  }),
  applyPoolSizes: (s) => void applied.push(s),
};

// The tiers router never uses the kernel.
const caller = (actor: Actor | null, tiers: TierRuntime = runtime) => callerFor(t, actor, { tiers });

beforeAll(async () => {
  t = await createTestDb();
  admin = (await loadActor(
    t.db,
    await createUser(t.db, { email: "admin@test.local", name: "Ada Admin", password: "test-password-1", role: "admin" }),
  ))!;
  viewer = (await loadActor(t.db, await createUser(t.db, { email: "viewer@test.local", password: "test-password-1", role: "viewer" })))!;
});
afterAll(async () => {
  await t?.cleanup();
});

describe("tiers", () => {
  it("get: the five tiers with what they offer, why this server cannot provide some, and the defaults in force", async () => {
    const overview = await caller(viewer, runtime).tiers.get();
    expect(overview.saved).toBe(false);
    expect(overview.tiers.map((x) => `${x.id} ${x.name}`)).toEqual([
      "T0 gateway",
      "T1 terminal",
      "T2 desktop",
      "T3 remote machine",
      "T4 local device",
    ]);
    expect(overview.tiers[2]).toMatchObject({ unavailable: "Xvfb is not installed", notBuilt: null });
    // Every tier is built here; one the server cannot run now says why.
    expect(overview.tiers.map((x) => x.notBuilt)).toEqual([null, null, null, null, null]);
    expect(overview.tiers[4]).toMatchObject({ unavailable: "this server has no device connections" });
    expect(overview.settings.T2.poolSize).toBe(1);
    // 0.05 USD an hour for at least T2's 10 idle minutes.
    expect(overview.tiers[2].estimateUsd).toBeCloseTo(0.05 / 6, 6);
  });

  it("save: admins only; a bad value is BAD_REQUEST naming the field, and nothing is stored", async () => {
    expect((await trpcError(caller(viewer, runtime).tiers.save(defaultTierSettings()))).code).toBe("FORBIDDEN");
    expect((await trpcError(caller(null, runtime).tiers.save(defaultTierSettings()))).code).toBe("UNAUTHORIZED");
    const bad = defaultTierSettings();
    bad.T2.threshold = 2;
    const err = await trpcError(caller(admin, runtime).tiers.save(bad));
    expect(err.code).toBe("BAD_REQUEST");
    const issues = (err.cause as DomainError).issues?.map((i) => `${i.path}: ${i.message}`);
    expect(issues).toEqual(["T2.threshold: is at most 1"]);
    expect(applied).toHaveLength(0);
    expect((await caller(admin, runtime).tiers.get()).saved).toBe(false);
  });

  it("save: stores, audits and resizes the running pools; get shows the saved settings", async () => {
    const next = defaultTierSettings({ terminal: 2, desktop: 1 });
    next.T2.poolSize = 3;
    next.T2.consentRole = null;
    const overview = await caller(admin, runtime).tiers.save(next);
    expect(overview.saved).toBe(true);
    expect(overview.settings.T2).toMatchObject({ poolSize: 3, consentRole: null });
    expect(applied.at(-1)?.T2.poolSize).toBe(3);
    expect((await caller(viewer).tiers.get()).settings.T2.consentRole).toBeNull();
    const audit = await listAudit(t.db, { kind: "tiers.updated" });
    expect(audit.entries[0]).toMatchObject({
      actorName: "Ada Admin",
      detail: { changes: { "T2.poolSize": [1, 3], "T2.consentRole": ["operator", null] } },
    });
  });
});
