// Old runs for the benchmarks that prune (bench:retention, bench:soak): ended runs written straight into
// an SQLite database of Rein's schema, each with its events, checkpoints and their replay rows, spans with
// detail, and for the first `folders` of them a workspace and a snapshot folder. Written in transactions
// of a thousand runs with synchronous=OFF: a million events take a few seconds.
import fs from "node:fs";
import path from "node:path";
import { openNativeSqlite } from "@/server/db";

export const CHECKPOINTS = 5;
export const SPANS = 10;

export interface Backlog {
  runs: number;
  /** Events per run; one in fifty is terminal input. */
  events: number;
  /** How many of the runs get a workspace and a snapshot folder. */
  folders: number;
  userId: string;
  teamIds: string[];
  /** When run `i` ended, in epoch ms. */
  endedAt: (i: number) => number;
  /** Run ids are `<prefix><i>`. */
  prefix: string;
  /** Progress lines while it writes. */
  say?: (line: string) => void;
}

const iso = (ms: number) => new Date(ms).toISOString().replace("Z", "+00:00");

/** Writes the backlog; returns its run ids. */
export function generateBacklog(url: string, dataDir: string, b: Backlog): string[] {
  const db = openNativeSqlite(url);
  db.pragma("synchronous = OFF");
  const run = db.prepare(
    `INSERT INTO "Run" (id, goal, agentName, agentVersion, teamId, createdById, status, model, tier, maxSteps, stepCount, costUsd, lastSeq, createdAt, startedAt, endedAt, updatedAt)
     VALUES (?, ?, 'demo-coder', 1, ?, ?, ?, 'scripted/demo-coder', 'T1', 50, 5, 0.01, ?, ?, ?, ?, ?)`,
  );
  const ev = db.prepare(`INSERT INTO "RunEvent" (runId, seq, type, actor, payload, createdAt) VALUES (?, ?, ?, 'agent:demo-coder', ?, ?)`);
  const cp = db.prepare(`INSERT INTO "Checkpoint" (id, runId, seq, version, state, createdAt) VALUES (?, ?, ?, 1, ?, ?)`);
  const tcr = db.prepare(
    `INSERT INTO "ToolCallResult" (id, runId, nodeId, checkpointId, toolName, inputHash, replayClass, status, result, createdAt) VALUES (?, ?, 'n', ?, 'shell', ?, 'unsafe_on_replay', 'done', '{"ok":true}', ?)`,
  );
  const span = db.prepare(
    `INSERT INTO "Span" (spanId, traceId, runId, kind, name, startTime, endTime, durationMs, status, teamId, workflowId, attributes, detail) VALUES (?, ?, ?, 'execute_tool', 'execute_tool shell', ?, ?, 5, 'ok', ?, 'demo-coder', '{"gen_ai.tool.name":"shell"}', ?)`,
  );
  const payload = JSON.stringify({ text: "x".repeat(100), step: 1 });
  const state = JSON.stringify({ messages: [{ role: "user", content: "y".repeat(2000) }] });
  const detail = JSON.stringify({ input: "z".repeat(300), output: "w".repeat(300) });
  const ids: string[] = [];
  const insert = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const id = `${b.prefix}${String(i).padStart(7, "0")}`;
      ids.push(id);
      const at = iso(b.endedAt(i));
      const team = b.teamIds[i % b.teamIds.length];
      run.run(id, `Goal ${i}`, team, b.userId, "succeeded", b.events, at, at, at, at);
      for (let s = 1; s <= b.events; s++) ev.run(id, s, s % 50 === 0 ? "terminal.input" : "model.turn", payload, at);
      for (let c = 1; c <= CHECKPOINTS; c++) {
        cp.run(`${id}c${c}`, id, c, state, at);
        tcr.run(`${id}t${c}`, id, `${id}c${c}`, `h${c}`, at);
      }
      for (let s = 0; s < SPANS; s++) span.run(`${id}s${s}`, id, id, at, at, team, detail);
    }
  });
  const started = Date.now();
  try {
    for (let i = 0; i < b.runs; i += 1000) {
      insert(i, Math.min(b.runs, i + 1000));
      if (i % 20_000 === 0) b.say?.(`  generated ${i} runs (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    }
  } finally {
    db.close();
  }
  for (const id of ids.slice(0, b.folders)) {
    const ws = path.join(dataDir, "workspaces", id);
    fs.mkdirSync(path.join(ws, "src"), { recursive: true });
    fs.writeFileSync(path.join(ws, "src", "main.js"), "console.log(1)\n".repeat(100));
    fs.mkdirSync(path.join(dataDir, "snapshots", id), { recursive: true });
    fs.writeFileSync(path.join(dataDir, "snapshots", id, "tree"), "t");
  }
  return ids;
}
