// The runtime-tool sandbox's cost, in one process: (a) a CSV column sum as a
// plain TypeScript function against the same function run as a runtime tool
// through runRuntimeTool (a worker thread, a fresh QuickJS instance per call);
// (b) the cold start of a fresh sandbox (create, evaluate the source,
// dispose), with a fresh WASM instance as Rein does and, for scale, on one
// shared instance; (c) how long the server's event loop stalls while a tool
// loops until its timeout. About 10 s.
import fs from "node:fs";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from "quickjs-emscripten-core";
import releaseSync from "@jitl/quickjs-wasmfile-release-sync";
import { closeSandboxWorkers, runRuntimeTool } from "@/server/improve";
import { measureStalls } from "@/test/helpers/event-loop";
import { summary } from "./bench-stats";

const CALLS = 300;
const WARMUP = 30;

/**
 * Sums one column of a CSV text whose fields may be quoted (with commas and
 * "" inside). Written without inner named functions, so its source text
 * (toString) is the runtime tool's implementation as it is.
 */
function csvColumnSum(csv: string, column: string): number {
  let sum = 0;
  let col = -1;
  let row = 0;
  let fields: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i <= csv.length; i++) {
    const c = i < csv.length ? csv[i] : "\n";
    if (quoted) {
      if (c === '"' && csv[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
      continue;
    }
    if (c === '"') quoted = true;
    else if (c === ",") {
      fields.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && csv[i + 1] === "\n") i++;
      fields.push(field);
      field = "";
      if (fields.length > 1 || fields[0] !== "") {
        if (row === 0) col = fields.indexOf(column);
        else sum += Number(fields[col]);
        row++;
      }
      fields = [];
    } else field += c;
  }
  if (col < 0) throw new Error(`no column ${column}`);
  return sum;
}

const TOOL_SOURCE = `${csvColumnSum.toString()}\nfunction run(args) { return csvColumnSum(args.csv, args.column); }`;

function sampleCsv(rows: number): string {
  const lines = ["id,name,note,amount"];
  for (let i = 0; i < rows; i++) lines.push(`${i},"Smith, J${i}","said ""hi"", left",${(i % 17) + 0.25}`);
  return `${lines.join("\r\n")}\r\n`;
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;

async function timeCalls(fn: () => Promise<unknown> | unknown): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < WARMUP; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  const s = summary(samples);
  return { p50: round(s.p50), p99: round(s.p99) };
}

/** Create a runtime and context, evaluate the tool's source, dispose: what every call pays before run(). */
function coldStart(module: QuickJSWASMModule): void {
  const rt = module.newRuntime();
  rt.setMemoryLimit(32 * 1024 * 1024);
  const ctx = rt.newContext();
  ctx.unwrapResult(ctx.evalCode(TOOL_SOURCE, "tool.js", { type: "global" })).dispose();
  ctx.dispose();
  rt.dispose();
}

export async function benchSandbox(): Promise<Record<string, number | string>> {
  const csv = sampleCsv(200);
  const args = { csv, column: "amount" };
  const expected = csvColumnSum(csv, "amount");
  const check = await runRuntimeTool(TOOL_SOURCE, args, {});
  if (!check.ok || check.output !== expected) throw new Error(`the runtime tool disagrees with the function: ${JSON.stringify(check)}`);

  const plain = await timeCalls(() => csvColumnSum(csv, "amount"));
  const tool = await timeCalls(async () => {
    const r = await runRuntimeTool(TOOL_SOURCE, args, {});
    if (!r.ok) throw new Error(r.error.message);
  });

  // The same WASM compilation Rein uses (a compiled module, instantiated per call).
  const wasm = await WebAssembly.compile(
    fs.readFileSync(createRequire(import.meta.url).resolve("@jitl/quickjs-wasmfile-release-sync/wasm")),
  );
  const variant = newVariant(releaseSync, { wasmModule: wasm });
  const shared = await newQuickJSWASMModuleFromVariant(variant);
  const freshInstance = await timeCalls(async () => coldStart(await newQuickJSWASMModuleFromVariant(variant)));
  const sharedInstance = await timeCalls(() => coldStart(shared));

  const { result: looped, stalls } = await measureStalls(() => runRuntimeTool("function run() { for (;;) {} }", null, {}));
  await closeSandboxWorkers();

  return {
    calls: CALLS,
    csvRows: 200,
    plainFunctionP50Ms: plain.p50,
    plainFunctionP99Ms: plain.p99,
    runtimeToolP50Ms: tool.p50,
    runtimeToolP99Ms: tool.p99,
    runtimeToolOverPlainP50: Math.round(tool.p50 / Math.max(plain.p50, 0.001)),
    coldStartFreshInstanceP50Ms: freshInstance.p50,
    coldStartFreshInstanceP99Ms: freshInstance.p99,
    coldStartSharedInstanceP50Ms: sharedInstance.p50,
    coldStartSharedInstanceP99Ms: sharedInstance.p99,
    infiniteLoopOutcome: looped.ok ? "ok" : looped.error.code,
    infiniteLoopDurationMs: Math.round(looped.durationMs),
    eventLoopStallMaxMsDuringInfiniteLoop: round(stalls.maxMs),
  };
}

async function main() {
  const figures = await benchSandbox();
  const width = Math.max(...Object.keys(figures).map((k) => k.length));
  for (const [k, v] of Object.entries(figures)) console.log(`${k.padEnd(width)}  ${v}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
