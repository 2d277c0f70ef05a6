// How fast this machine is right now, for `npm test`'s summary (scripts/test.sh runs it when the
// tests start and when they end): a fixed piece of CPU work timed in CPU and in wall-clock
// milliseconds, the load average, and the processes that were using the most CPU. A suite that ran
// slower than usual on a slowed or crowded machine says so, rather than looking like a slower suite
// (docs/development.md#run-the-tests). Prints one line of JSON; takes about a fifth of a second.
import { execFileSync } from "node:child_process";
import fs from "node:fs";

/** The same work every time: an integer loop the JIT cannot skip (its result is printed). */
function fixedWork() {
  let x = 0;
  for (let i = 0; i < 40_000_000; i++) x = (x * 31 + i) | 0;
  return x;
}

/** The processes with the most CPU time over their lives, beyond a tenth of a core; none where ps is missing. */
function busiest() {
  try {
    const out = execFileSync("ps", ["-eo", "pid=,pcpu=,args=", "--sort=-pcpu"], { encoding: "utf8", timeout: 5_000 });
    return (
      out
        .split("\n")
        .map((line) => /^\s*(\d+)\s+([\d.]+)\s+(.+)$/.exec(line))
        .filter((m) => m && Number(m[1]) !== process.pid && Number(m[2]) >= 10)
        .slice(0, 5)
        // The command line, cut short: a Node program's own name ("MainThread") says nothing of what it runs.
        .map((m) => ({ cpu: Number(m[2]), command: m[3].trim().slice(0, 80) }))
    );
  } catch {
    return [];
  }
}

function loadAverage() {
  try {
    return Number(fs.readFileSync("/proc/loadavg", "utf8").split(" ")[0]);
  } catch {
    return null;
  }
}

const load = loadAverage();
const others = busiest();
const cpu0 = process.cpuUsage();
const wall0 = performance.now();
const check = fixedWork();
const wallMs = Math.round(performance.now() - wall0);
const { user, system } = process.cpuUsage(cpu0);
console.log(JSON.stringify({ cpuMs: Math.round((user + system) / 1000), wallMs, load, busiest: others, check }));
