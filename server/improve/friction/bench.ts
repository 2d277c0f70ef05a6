// What mining friction costs per committed event (for npm run bench:improve):
// ~100k synthetic events over many runs, fed one event at a time as the
// server will, against the baseline of serialising the same payloads (which
// the run store does for every event anyway), in the same process.
import type { RunEventRecord } from "@/server/kernel";
import { RunLog } from "./fixtures";
import { RunFrictionMiner } from "./miner";

export interface MinerBench {
  events: number;
  runs: number;
  /** Observations the miner returned over one pass. */
  observations: number;
  /** Median over the rounds of the miner's time per event. */
  perEventUs: number;
  /** The same for JSON.stringify of each event's payload. */
  baselinePerEventUs: number;
  /** perEventUs / baselinePerEventUs. */
  ratio: number;
}

const NOISE = "collecting rows from sales.csv ... ok\n".repeat(80);
/** A command that printed far more than the cap: the miner reads only bounded ends of it. */
const FLOOD = "x".repeat(64 * 1024) + "\nMemoryError: out of memory\n";

function syntheticRun(i: number): RunEventRecord[] {
  const log = new RunLog(`bench-run-${i}`);
  for (let k = 0; k < 8; k++) log.shell(`grep -c ok part-${k}.log`, 0, `${k * 13}\n`);
  log.ok("read_file", { path: "report.py" }, { content: "import csv\n".repeat(40) });
  for (let k = 0; k < 4 + (i % 3); k++) {
    log.shell(
      "python3 report.py",
      1,
      `${NOISE}Traceback (most recent call last):\n  File "/tmp/tmp.${i}k${k}/report.py", line ${10 + k}, in <module>\nValueError: could not convert string to float: 'Row ${k}'\n`,
    );
  }
  if (i % 50 === 0) log.shell("python3 dump.py", 137, FLOOD);
  if (i % 5 === 0)
    log.fail("deploy_prod", {}, "UNKNOWN_TOOL", 'Tool "deploy_prod" is not available to this agent (available: shell, read_file)');
  if (i % 3 === 0) {
    const id = log.call("shell", { command: "./deploy.sh staging" });
    const state = i % 10 === 0 ? "REJECTED" : "APPROVED";
    log.decided(log.requested(id, "shell", "approve", "Run `./deploy.sh staging`?"), "approve", state, {
      decision: state === "REJECTED" ? "reject" : "approve",
    });
    log.result(
      id,
      "shell",
      state === "REJECTED"
        ? { ok: false, error: { code: "REJECTED_BY_HUMAN", message: "Ann rejected this call" } }
        : { ok: true, output: { exitCode: 0, output: "deployed\n" } },
    );
  }
  if (i % 20 === 0) {
    const id = log.call("shell", { command: "python3 report.py" });
    log.decided(log.requested(id, "shell", "choose", "shell ran 4 times in a row with the same arguments"), "choose", "APPROVED", {
      decision: "choose",
      optionId: "skip",
    });
    log.result(id, "shell", { ok: false, error: { code: "LOOP_SKIPPED", message: "A person skipped this call" } });
  }
  if (i % 25 === 0) log.takeover("terminal", "fixing the CSV by hand");
  for (let k = 0; k < 6; k++) log.ok("write_file", { path: `out/${k}.txt`, content: "done" });
  return i % 15 === 0 ? log.failWith("RUN_BUDGET_EXCEEDED", "The run has spent $1.00 of its $1.00 budget") : log.succeed();
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export function benchMiner(options: { events?: number; rounds?: number } = {}): MinerBench {
  const target = options.events ?? 100_000;
  const rounds = options.rounds ?? 5;
  const runs: RunEventRecord[][] = [];
  let events = 0;
  while (events < target) {
    const run = syntheticRun(runs.length);
    runs.push(run);
    events += run.length;
  }

  let observations = 0;
  const mine = () => {
    let n = 0;
    const t0 = performance.now();
    for (const run of runs) {
      const miner = new RunFrictionMiner(run[0].runId);
      for (const e of run) n += miner.observe([e]).length;
    }
    observations = n;
    return performance.now() - t0;
  };
  let sink = 0;
  const serialise = () => {
    const t0 = performance.now();
    for (const run of runs) for (const e of run) sink += JSON.stringify(e.payload).length;
    return performance.now() - t0;
  };

  mine();
  serialise();
  const minerMs: number[] = [];
  const baselineMs: number[] = [];
  for (let r = 0; r < rounds; r++) {
    minerMs.push(mine());
    baselineMs.push(serialise());
  }
  if (sink < 0) throw new Error("unreachable: keeps the baseline from being optimised away");
  const perEventUs = (median(minerMs) * 1000) / events;
  const baselinePerEventUs = (median(baselineMs) * 1000) / events;
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    events,
    runs: runs.length,
    observations,
    perEventUs: round(perEventUs),
    baselinePerEventUs: round(baselinePerEventUs),
    ratio: round(perEventUs / baselinePerEventUs),
  };
}
