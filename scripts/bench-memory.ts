// Memory recall latency at 100,000 memories (npm run bench:long calls
// benchMemory(); it also runs alone: tsx scripts/bench-memory.ts). Seeds a
// fresh migrated SQLite database, then times recall (FTS5, bm25, scoped to a
// run's team and agent) against the same question answered by a plain LIKE
// scan with the same scope, in the same process. Prints figures, asserts nothing.
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDb, openNativeSqlite } from "@/server/db";
import { MemoryStore, ensureSearchIndex, likeScanIds, rankedIds, searchTerms } from "@/server/memory";

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const ms = (n: number) => `${n.toFixed(2)} ms`;

export interface MemoryBenchResult {
  memories: number;
  queries: number;
  recall: { p50: number; p99: number };
  ranked: { p50: number; p99: number };
  likeScan: { p50: number; p99: number };
  seedSeconds: number;
}

export async function benchMemory(opts: { memories?: number; queries?: number } = {}): Promise<MemoryBenchResult> {
  const total = opts.memories ?? Number(process.env.BENCH_MEMORIES ?? 100_000);
  const queries = opts.queries ?? Number(process.env.BENCH_QUERIES ?? 200);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-bench-memory-"));
  const url = `file:${path.join(dir, "rein.db")}`;
  execFileSync("bash", ["scripts/prisma.sh", "migrate", "deploy"], { env: { ...process.env, DATABASE_URL: url }, stdio: "pipe" });
  const db = await openDb(url);
  const native = openNativeSqlite(url);
  try {
    await ensureSearchIndex(db);
    // A vocabulary with a long tail, like real notes: a few words are everywhere, most are rare.
    let seed = 42;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const vocab = Array.from(
      { length: 5_000 },
      (_, i) => `w${i.toString(36)}${["deploy", "test", "build", "parse", "cache", "index", "query", "token"][i % 8]}`,
    );
    const word = () => vocab[Math.floor(vocab.length * rand() ** 2.5)];
    // Ids like Rein's own (cuids: one word each).
    const teams = Array.from({ length: 20 }, (_, i) => `cm${crypto.createHash("sha1").update(`team ${i}`).digest("hex").slice(0, 22)}`);
    const agents = Array.from({ length: 10 }, (_, i) => `agent-${i}`);
    const kinds = ["fact", "procedure", "preference", "episode"];
    const started = performance.now();
    const insert = native.prepare(
      `INSERT INTO "Memory" ("id","scope","agentName","teamId","kind","title","text","state","pinned","createdBy","uses","createdAt","updatedAt") VALUES (?,?,?,?,?,?,?,'active',0,?,0,?,?)`,
    );
    native.transaction(() => {
      for (let i = 0; i < total; i++) {
        const n = 15 + Math.floor(rand() * 40);
        const text = Array.from({ length: n }, word).join(" ");
        const now = Date.now() - i * 1000;
        insert.run(
          crypto.randomUUID(),
          rand() < 0.5 ? "agent" : "team",
          agents[i % agents.length],
          teams[i % teams.length],
          kinds[i % 4],
          `${word()} ${word()}`,
          text,
          `agent:${agents[i % agents.length]}`,
          now,
          now,
        );
      }
    })();
    const seedSeconds = (performance.now() - started) / 1000;
    const store = new MemoryStore({ db });
    // Half the questions use common words (many matches to rank), half rare ones (few matches: a scan reads everything).
    const rare = () => vocab[Math.floor(vocab.length * rand())];
    const questions = Array.from({ length: queries }, (_, i) => ({
      q: i % 2 ? `${word()} ${word()} ${word()}` : `${rare()} ${rare()} ${rare()}`,
      teamId: teams[i % teams.length],
      agentName: agents[(i * 7) % agents.length],
    }));
    // Warm both paths once.
    await store.recall(questions[0].q, questions[0]);
    const scope = (q: (typeof questions)[number]) => ({
      sql: `m."state" = ? AND m."teamId" = ? AND (m."scope" = ? OR (m."scope" = ? AND m."agentName" = ?))`,
      params: ["active", q.teamId, "team", "agent", q.agentName],
    });
    await likeScanIds(db, searchTerms(questions[0].q), scope(questions[0]), 5);
    const recall: number[] = [];
    const ranked: number[] = [];
    const like: number[] = [];
    for (const q of questions) {
      let t = performance.now();
      await store.recall(q.q, q, 5);
      recall.push(performance.now() - t);
      t = performance.now();
      await rankedIds(db, searchTerms(q.q), { sql: scope(q).sql, params: scope(q).params }, 5, q.teamId);
      ranked.push(performance.now() - t);
      t = performance.now();
      await likeScanIds(db, searchTerms(q.q), scope(q), 5);
      like.push(performance.now() - t);
    }
    const result = {
      memories: total,
      queries,
      recall: { p50: pct(recall, 50), p99: pct(recall, 99) },
      ranked: { p50: pct(ranked, 50), p99: pct(ranked, 99) },
      likeScan: { p50: pct(like, 50), p99: pct(like, 99) },
      seedSeconds,
    };
    console.log(
      `memory: ${total.toLocaleString()} memories (20 teams, 10 agents) seeded in ${seedSeconds.toFixed(1)} s; ${queries} recalls of 3 words (half common, half rare), top 5, scoped to a team and agent`,
    );
    console.log(`  recall as the tool runs it (rank, read, count the use):  p50 ${ms(result.recall.p50)}  p99 ${ms(result.recall.p99)}`);
    console.log(`  the ranked search alone (FTS5 + bm25, top 5):            p50 ${ms(result.ranked.p50)}  p99 ${ms(result.ranked.p99)}`);
    console.log(
      `  LIKE scan, unranked (baseline):                          p50 ${ms(result.likeScan.p50)}  p99 ${ms(result.likeScan.p99)}`,
    );
    console.log(
      `  ranked search / LIKE scan:                               p50 ${(result.ranked.p50 / result.likeScan.p50).toFixed(3)}  p99 ${(result.ranked.p99 / result.likeScan.p99).toFixed(3)}`,
    );
    return result;
  } finally {
    native.close();
    await db.$disconnect();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith("bench-memory.ts")) {
  benchMemory().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
