// npm run bench:tiers — the time upgrade_tier takes to move a run from T1 to
// T2 (a real desktop: Xvfb, openbox, Chromium, x11vnc), cold and from the
// warm pool: the migration itself (provision, join the workspace, probe) and
// the whole call (the tier state machine's facts, the move, the records).
// The run already has its workspace, as every run the kernel drives does.
// Prints figures; asserts nothing. bench:desktop calls benchUpgrade() too.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { DesktopPool } from "@/server/compute";
import type { Db } from "@/server/db";
import { createUser } from "@/server/identity";
import { PrismaRunStore, PrismaSpecSource, seedBuiltinSpecs } from "@/server/kernel";
import { Budgets } from "@/server/limits";
import { TierController, defaultTierSettings, saveTierSettings } from "@/server/tiers";
import { workspaceFor } from "@/server/tools";
import { migratedDb, summary } from "./bench-stats";

const fmt = (xs: number[]) => {
  const s = summary(xs);
  return `p50 ${s.p50.toFixed(0).padStart(5)} ms   p95 ${s.p95.toFixed(0).padStart(5)} ms   (n=${s.n})`;
};

export interface UpgradeFigures {
  cold: { migrationMs: number[]; callMs: number[] };
  warm: { migrationMs: number[]; callMs: number[] };
}

async function upgradeOnce(db: Db, tiers: TierController, dataDir: string, userId: string, i: number) {
  const spec = (await db.agentSpec.findFirst({ where: { name: "demo-browser" }, orderBy: { version: "desc" } }))!;
  const run = await db.run.create({
    data: { goal: `bench ${i}`, agentName: spec.name, agentVersion: spec.version, model: spec.model, tier: "T1", createdById: userId },
    select: { id: true },
  });
  // A run on T1 has its workspace: the kernel makes it before the run's first step.
  await workspaceFor(dataDir, run.id).ensure();
  const t0 = performance.now();
  const out = await tiers.upgrade({ runId: run.id, toolCallId: `bench-${i}`, tier: "T2", reason: "benchmark" });
  const callMs = performance.now() - t0;
  await tiers.runEnded(run.id, "succeeded");
  return { migrationMs: out.durationMs, callMs, fromPool: !!out.fromPool };
}

/** `n` moves to T2 with no warm desktop, then `n` with one waiting. */
export async function benchUpgrade(n = Number(process.env.BENCH_N ?? 5)): Promise<UpgradeFigures> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rein-bench-tiers-"));
  const db = await migratedDb(`file:${path.join(tmp, "rein.db")}`);
  const desktops = new DesktopPool({ dataDir: tmp, size: 0 });
  try {
    const why = desktops.unavailable();
    if (why) throw new Error(`No desktops on this machine: ${why}`);
    await seedBuiltinSpecs(db);
    const userId = await createUser(db, { email: "bench@rein.local", password: "bench-password", role: "operator" });
    // Consent is a person's time, not the machine's: nobody is asked here.
    const settings = defaultTierSettings({ desktop: 0 });
    settings.T2.consentRole = null;
    await saveTierSettings(db, settings, { userId, name: "bench" });
    await desktops.start();
    const tiers = new TierController({
      db,
      runs: new PrismaRunStore(db, () => {}),
      specs: new PrismaSpecSource(db),
      budgets: new Budgets({ db, flush: async () => {} }),
      desktops,
      workspaceFor: (runId) => workspaceFor(tmp, runId),
      log: { info() {}, error: (m, e) => console.error(m, e) },
    });
    const figures: UpgradeFigures = { cold: { migrationMs: [], callMs: [] }, warm: { migrationMs: [], callMs: [] } };
    for (let i = 0; i < n; i++) {
      const r = await upgradeOnce(db, tiers, tmp, userId, i);
      figures.cold.migrationMs.push(r.migrationMs);
      figures.cold.callMs.push(r.callMs);
    }
    desktops.setSize(1);
    for (let i = 0; i < n; i++) {
      const deadline = Date.now() + 60_000;
      while (desktops.stats().warm < 1) {
        if (Date.now() > deadline) throw new Error("No warm desktop started within 60 s");
        await new Promise((r) => setTimeout(r, 20));
      }
      // A warm desktop connects its browser over CDP once started; give it the moment a waiting desktop has had.
      await new Promise((r) => setTimeout(r, 1500));
      const r = await upgradeOnce(db, tiers, tmp, userId, n + i);
      if (!r.fromPool) continue;
      figures.warm.migrationMs.push(r.migrationMs);
      figures.warm.callMs.push(r.callMs);
    }
    return figures;
  } finally {
    await desktops.stop();
    await db.$disconnect();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

export function printUpgrade(f: UpgradeFigures) {
  console.log(`\nUpgrade T1 → T2 (upgrade_tier, no consent asked)`);
  console.log(`migration, cold (desktop started, workspace joined, probed)  ${fmt(f.cold.migrationMs)}`);
  console.log(`migration, from the warm pool                              ${fmt(f.warm.migrationMs)}`);
  console.log(`whole upgrade_tier call, cold                              ${fmt(f.cold.callMs)}`);
  console.log(`whole upgrade_tier call, from the warm pool                ${fmt(f.warm.callMs)}`);
  const ratio = summary(f.cold.migrationMs).p50 / Math.max(1, summary(f.warm.migrationMs).p50);
  console.log(`warm pool speed-up (p50 migration, cold / warm)            ${ratio.toFixed(1)}×`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  benchUpgrade()
    .then(printUpgrade)
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
