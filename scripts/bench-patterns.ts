// npm run bench:patterns — the event loop's stalls while hostile patterns
// are matched (a provide request's schema pattern, a list_files glob, a
// policy pattern), next to benign ones in the same run, and what the same
// work costs a backtracking JavaScript regex on an input small enough to end.
// Then the Markdown an agent writes, as the run page renders it: hostile
// 100 KB lines against 100 KB of ordinary prose in the same run. Last, the
// policy's reading of a shell command line an agent sends: everyday commands
// against 64 kB ones built to be slow to read, read on the event loop (as
// before) and decided now (long lines read in a thread).
import { linearPattern, patternViolation } from "@/server/patterns";
import { globToRegExp } from "@/server/tools";
import { monitorEventLoopDelay } from "node:perf_hooks";
import {
  analyzeShell,
  closeCommandReaders,
  DEFAULT_POLICY,
  decideCall,
  evaluate,
  INLINE_MAX_CHARS,
  INLINE_MAX_NODES,
  parsePolicy,
  READ_LIMIT_MS,
} from "@/server/policy";
import { measureStalls } from "@/test/helpers/event-loop";
import { parseMarkdown } from "@/lib/markdown";

const ROUNDS = Number(process.env.BENCH_ROUNDS) || 200;
const fmt = (ms: number) => `${ms.toFixed(2)} ms`;

async function lag(name: string, work: () => unknown) {
  const { stalls } = await measureStalls(async () => {
    for (let i = 0; i < ROUNDS; i++) {
      work();
      // Let the probe tick between inputs, as a server does between requests.
      await new Promise((r) => setImmediate(r));
    }
  });
  console.log(`${name.padEnd(48)} event-loop stall p99 ${fmt(stalls.p99Ms)}, max ${fmt(stalls.maxMs)} (${stalls.samples} ticks)`);
}

async function main() {
  const evil = "^(a+)+$";
  const schema = { type: "object", properties: { code: { type: "string", pattern: evil } } };
  const policy = parsePolicy(
    `rules:\n  - tool: shell\n    args:\n      command: { pattern: '${evil}' }\n    decision: deny\n  - tool: "*"\n    decision: allow\n`,
  );
  if (!policy.ok) throw new Error("policy");
  const glob = globToRegExp(`${"**a".repeat(9)}**b`);
  const benignGlob = globToRegExp("src/**/*.ts");
  console.log(`${ROUNDS} inputs each\n`);
  await lag("benign: provide pattern ^[A-Z]+$ on 'ABC'", () => patternViolation({ type: "string", pattern: "^[A-Z]+$" }, "ABC"));
  await lag("hostile: provide pattern ^(a+)+$ on 31 a's and '!'", () => patternViolation(schema, { code: `${"a".repeat(31)}!` }));
  await lag("hostile: the same on 100,000 a's and '!'", () => patternViolation(schema, { code: `${"a".repeat(100_000)}!` }));
  await lag("benign: glob src/**/*.ts", () => benignGlob.test("src/a/b/c.ts"));
  await lag("hostile: glob with nine ** on a 40-character name", () => glob.test(`d/${"a".repeat(40)}.txt`));
  await lag("hostile: policy pattern ^(a+)+$ on 5,000 a's", () =>
    evaluate(policy.policy, { actor: { id: "a" }, team: null, tool: "shell", args: { command: `${"a".repeat(5000)}!` }, tier: "T1" }),
  );
  // For scale: a JavaScript regex on the same pattern, with an input short enough to end.
  for (const n of [20, 22, 24]) {
    const t0 = performance.now();
    new RegExp(evil).test(`${"a".repeat(n)}!`);
    const js = performance.now() - t0;
    const t1 = performance.now();
    linearPattern(evil).test(`${"a".repeat(n)}!`);
    console.log(`for scale, ^(a+)+$ on ${n} a's and '!': JavaScript RegExp ${fmt(js)}, RE2 (re2js) ${fmt(performance.now() - t1)}`);
  }
}

/** The run page's Markdown on what an agent may write: each input's p50 over a few renders. */
function markdown() {
  const N = 100_000;
  const prose = "Ran `npm test`: **5 tests pass**, see [the log](https://example.com/log) and _notes_. ".repeat(N / 80);
  const inputs: Record<string, string> = {
    "baseline: 100 KB of ordinary agent prose": prose,
    "hostile: 100 KB of open brackets": "[".repeat(N),
    "hostile: 100 KB of unclosed links": "[a](".repeat(N / 4),
    "hostile: 100 KB of unclosed link titles": '[a](u "'.repeat(N / 7),
    "hostile: 100 KB of backtick runs": "` ``".repeat(N / 4),
    "hostile: 100 KB of nested emphasis": "*_**[".repeat(N / 5),
    "hostile: a heading of 100 KB of spaces": `# a${" ".repeat(N)}x`,
  };
  console.log("\nMarkdown (lib/markdown.ts), p50 of 5 renders");
  for (const [name, text] of Object.entries(inputs)) {
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      parseMarkdown(text, { external: true });
      times.push(performance.now() - t0);
    }
    console.log(`${name.padEnd(48)} ${fmt(times.sort((a, b) => a - b)[2])}`);
  }
}

/** Each run's time and the event loop's delay meanwhile (monitorEventLoopDelay), over `runs` runs with a turn of the loop between them. */
async function timed(runs: number, work: () => unknown): Promise<{ p50: number; max: number; delayP99: number; delayMax: number }> {
  const times: number[] = [];
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await work();
    times.push(performance.now() - t0);
    await new Promise((r) => setImmediate(r));
  }
  delay.disable();
  times.sort((a, b) => a - b);
  const ms = (ns: number) => ns / 1e6;
  return { p50: times[Math.floor(runs / 2)], max: times[runs - 1], delayP99: ms(delay.percentile(99)), delayMax: ms(delay.max) };
}

/**
 * The policy's reading of shell commands under the default policy: read on
 * the event loop, as before (analyzeShell), against a decision now
 * (decideCall: lines over INLINE_MAX_CHARS or INLINE_MAX_NODES go to a
 * reader thread with a READ_LIMIT_MS limit). p50 and max of 5, and the
 * loop's delay meanwhile.
 */
async function shellLines() {
  const parsed = parsePolicy(DEFAULT_POLICY, 1);
  if (!parsed.ok) throw new Error("default policy");
  const file = "def f(x):\n    return [y for y in range(x) if y % 2 == 0]\n".repeat(1000);
  const decide = (command: string) =>
    decideCall(parsed.policy, { actor: { id: "a" }, team: null, tool: "shell", args: { command }, tier: "T1" });
  const inputs: Record<string, string> = {
    "baseline: git add, commit and log": "git add -A && git commit -q -m 'Add tests' && git log --oneline -1",
    "baseline: a 57 kB file written by a here-document": `cat > f.py <<'EOF'\n${file}EOF\n`,
    "hostile: 64 kB of one-word commands": "a;".repeat(32_000),
    "hostile: one command of 32,000 words": `echo ${"a ".repeat(32_000)}`,
    "hostile: 10,000 wrappers": `${"nohup ".repeat(10_000)}ls`,
    "hostile: a here-document of 20,000 variables": `cat <<EOF\n${"$x ".repeat(20_000)}\nEOF\n`,
    "hostile: 10,000 nested $( )": `echo ${"$(".repeat(10_000)}x${")".repeat(10_000)}`,
  };
  // Start the reader threads first, as a server that has decided a long command has.
  await decide("a;".repeat(INLINE_MAX_CHARS / 2));
  console.log(
    `\nShell commands under the default policy (server/policy), p50 and max of 5; read in place up to ${INLINE_MAX_CHARS / 1024} kB and ${INLINE_MAX_NODES} nodes, else in a thread with a limit of ${READ_LIMIT_MS} ms`,
  );
  const line = (name: string, t: Awaited<ReturnType<typeof timed>>) =>
    console.log(`  ${name.padEnd(22)} ${fmt(t.p50)}, max ${fmt(t.max)}; event-loop delay p99 ${fmt(t.delayP99)}, max ${fmt(t.delayMax)}`);
  for (const [name, command] of Object.entries(inputs)) {
    console.log(name);
    line("read on the loop", await timed(5, () => analyzeShell(command)));
    line("decision now", await timed(5, () => decide(command)));
  }
  // What a line read in place may cost at most, and what the hop to a thread costs a cheap line.
  const small: Record<string, string> = {
    "everyday: git status": "git status",
    "everyday: git add, commit and log": "git add -A && git commit -q -m 'Add tests' && git log --oneline -1",
    [`the most read in place: ${INLINE_MAX_NODES} nodes`]: "a;".repeat((INLINE_MAX_NODES - 1) / 4),
    [`the most read in place: one word of ${INLINE_MAX_CHARS / 1024} kB`]: `echo ${"a".repeat(INLINE_MAX_CHARS - 5)}`,
    "a thread's: one word just over that": `echo ${"a".repeat(INLINE_MAX_CHARS)}`,
    [`a thread's: ${INLINE_MAX_CHARS / 1024} kB of one-word commands`]: "a;".repeat(INLINE_MAX_CHARS / 2),
  };
  console.log("\nCheap lines, p50 and max of 200");
  for (const [name, command] of Object.entries(small)) {
    console.log(`${name} (${command.length} characters)`);
    line("read on the loop", await timed(200, () => analyzeShell(command)));
    line("decision now", await timed(200, () => decide(command)));
  }
  await closeCommandReaders();
}

main()
  .then(markdown)
  .then(shellLines)
  .catch((err) => {
    console.error(err);
    process.exit(1);
  });
