// Shared by the bench scripts: percentiles of samples and a migrated scratch database.
import { execFileSync } from "node:child_process";
import { openDb, type Db } from "@/server/db";

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export function summary(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  return {
    n: s.length,
    p50: percentile(s, 50),
    p95: percentile(s, 95),
    p99: percentile(s, 99),
    max: s[s.length - 1],
    mean: s.reduce((a, b) => a + b, 0) / s.length,
  };
}

export async function migratedDb(url: string): Promise<Db> {
  execFileSync("bash", ["scripts/prisma.sh", "migrate", "deploy"], { env: { ...process.env, DATABASE_URL: url }, stdio: "pipe" });
  return openDb(url);
}
