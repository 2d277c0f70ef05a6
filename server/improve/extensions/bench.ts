// The cost of an extension tool call (npm run bench:improve): the demo's
// csv_column_sum through its ToolDefinition (a fresh sandbox that loads the
// package, runs setup and calls the handler) against the same function as a
// runtime tool through runRuntimeTool, interleaved in one process; plus the
// build and the gate of the demo package once. Prints nothing; returns figures.
import type { ToolContext } from "@/server/tools";
import { runRuntimeTool } from "../sandbox";
import { extensionToolDefinitions } from "./definition";
import { CSV_TOOLS_EXTENSION } from "./demo";
import { runExtensionGate } from "./gate";
import { loadExtension } from "./load";

/** The demo's handler and its CSV parser as one runtime tool: the same code, without the package around it. */
const RUNTIME_SOURCE = `${CSV_TOOLS_EXTENSION.files["lib/csv.js"].replace("module.exports = { parseCsv };", "")}
function run(args) {
  const [header, ...rows] = parseCsv(args.csv);
  const col = header ? header.indexOf(args.column) : -1;
  if (col < 0) throw new Error("no column " + args.column);
  let sum = 0;
  for (const row of rows) sum += Number(row[col]);
  return { column: args.column, rows: rows.length, total: Math.round(sum * 100) / 100 };
}`;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function sampleCsv(rows: number): string {
  const lines = ["id,name,amount"];
  for (let i = 0; i < rows; i++) lines.push(`${i},"Smith, J${i}",${(i % 17) + 0.25}`);
  return `${lines.join("\r\n")}\r\n`;
}

const round = (n: number) => Math.round(n * 1000) / 1000;

export interface ExtensionBench {
  calls: number;
  runtimeTool: { p50: number; p99: number };
  extensionTool: { p50: number; p99: number };
  overheadP50Ms: number;
  ratioP50: number;
  loadMs: number;
  gateMs: number;
}

export async function benchExtensionCall(calls = 200, warmup = 20): Promise<ExtensionBench> {
  const args = { csv: sampleCsv(200), column: "amount" };
  const loaded = await loadExtension(CSV_TOOLS_EXTENSION);
  if (!loaded.ok) throw new Error(loaded.problems.join("; "));

  const [def] = extensionToolDefinitions(CSV_TOOLS_EXTENSION, loaded.registered, { allowedCapabilities: async () => [] });
  const ctx = {
    runId: "bench",
    toolCallId: "bench",
    agent: { name: "bench", handoffs: [] },
    actorId: "bench",
    signal: new AbortController().signal,
  } as unknown as ToolContext;
  const viaRuntime = async () => {
    const r = await runRuntimeTool(RUNTIME_SOURCE, args, {});
    if (!r.ok) throw new Error(r.error.message);
    return r.output;
  };
  const viaExtension = () => def.execute(def.args.parse(args), ctx);
  const a = await viaRuntime();
  const b = await viaExtension();
  if (JSON.stringify(a) !== JSON.stringify(b))
    throw new Error(`the extension (${JSON.stringify(b)}) and the runtime tool (${JSON.stringify(a)}) disagree`);

  const samples = { runtime: [] as number[], extension: [] as number[] };
  for (let i = 0; i < warmup; i++) await Promise.all([viaRuntime(), viaExtension()]);
  // Interleaved, so a busy moment of the machine weighs on both.
  for (let i = 0; i < calls; i++) {
    for (const [key, fn] of [
      ["runtime", viaRuntime],
      ["extension", viaExtension],
    ] as const) {
      const t = performance.now();
      await fn();
      samples[key].push(performance.now() - t);
    }
  }
  // Once the sandbox's workers are warm, as they are in a running server.
  const t0 = performance.now();
  await loadExtension(CSV_TOOLS_EXTENSION);
  const loadMs = performance.now() - t0;
  const t1 = performance.now();
  const gate = await runExtensionGate(CSV_TOOLS_EXTENSION);
  const gateMs = performance.now() - t1;
  if (!gate.ok) throw new Error(gate.summary);
  const stats = (xs: number[]) => {
    const s = [...xs].sort((x, y) => x - y);
    return { p50: round(percentile(s, 50)), p99: round(percentile(s, 99)) };
  };
  const runtimeTool = stats(samples.runtime);
  const extensionTool = stats(samples.extension);
  return {
    calls,
    runtimeTool,
    extensionTool,
    overheadP50Ms: round(extensionTool.p50 - runtimeTool.p50),
    ratioP50: Math.round((extensionTool.p50 / runtimeTool.p50) * 100) / 100,
    loadMs: round(loadMs),
    gateMs: round(gateMs),
  };
}
