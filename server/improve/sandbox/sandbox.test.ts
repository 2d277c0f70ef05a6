// The runtime-tool sandbox from the outside, as the improver's tools will use
// it: the code under test is hostile, so most of these are attacks, each
// followed by what must hold after it.
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_SANDBOX_LIMITS, checkRuntimeToolSource, closeSandboxWorkers, runRuntimeTool, type SandboxOutcome } from "./index";

afterAll(() => closeSandboxWorkers());

/** Short, so the timeout tests are quick; still far above what the working tools need. */
const QUICK = { timeoutMs: 300 };

async function ok(source: string, args: unknown = null, host = {}, limits = {}): Promise<unknown> {
  const r = await runRuntimeTool(source, args, host, limits);
  if (!r.ok) throw new Error(`expected a result, got ${r.error.code}: ${r.error.message}`);
  return r.output;
}

async function failure(
  source: string,
  args: unknown = null,
  host = {},
  limits = {},
): Promise<Extract<SandboxOutcome, { ok: false }>["error"]> {
  const r = await runRuntimeTool(source, args, host, limits);
  if (r.ok) throw new Error(`expected a failure, got ${JSON.stringify(r.output)}`);
  return r.error;
}

/** While `work` runs, does the server's event loop keep turning? Counts 5 ms ticks. */
async function ticksDuring<T>(work: () => Promise<T>): Promise<{ result: T; ticks: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 5);
  try {
    return { result: await work(), ticks };
  } finally {
    clearInterval(timer);
  }
}

const CSV_SUM = `
// Sums one column of a CSV text; fields may be quoted, with commas and "" inside.
function parseLine(line) {
  const fields = [];
  let field = "", quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') { field += '"'; i++; }
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") { fields.push(field); field = ""; }
    else field += c;
  }
  fields.push(field);
  return fields;
}
function run(args) {
  const [header, ...rows] = args.csv.split(/\\r?\\n/).filter((l) => l.length > 0);
  const col = parseLine(header).indexOf(args.column);
  if (col < 0) throw new Error("no column " + args.column);
  return rows.reduce((sum, row) => sum + Number(parseLine(row)[col]), 0);
}`;

describe("a working tool", () => {
  it("sums a CSV column whose other fields hold quoted commas and quotes", async () => {
    const csv = 'name,note,amount\r\n"Smith, Jane","said ""hi"", left",10.5\r\nBob,plain,4\r\n"Lee, Ann",",,,",-2.25\r\n';
    expect(await ok(CSV_SUM, { csv, column: "amount" })).toBe(12.25);
    // The same parser splitting on every comma would have read "said ""hi""" as the amount.
    const r = await failure(CSV_SUM, { csv, column: "total" });
    expect(r).toEqual({ code: "THREW", message: "the tool threw Error: no column total (line 22, column 31)" });
  });

  it("gets args as a plain JSON copy and may be async; undefined comes back as null", async () => {
    const args = { when: new Date(0), list: [1, 2] };
    expect(await ok("async function run(a) { await null; a.list.push(3); return [typeof a.when, a.when, a.list] }", args)).toEqual([
      "string",
      "1970-01-01T00:00:00.000Z",
      [1, 2, 3],
    ]);
    expect(args.list).toEqual([1, 2]);
    expect(await ok("function run() {}")).toBeNull();
    expect(await ok("const run = (a) => a.n * 2", { n: 21 })).toBe(42);
  });

  it("captures console output, capped", async () => {
    const r = await runRuntimeTool('function run() { console.log("rows", 3, { a: 1 }); console.error("x"); return 1 }', null, {});
    expect(r).toMatchObject({ ok: true, output: 1, logs: ['rows 3 {"a":1}', "x"] });
    const flood = await runRuntimeTool(
      'function run() { for (let i = 0; i < 10000; i++) console.log("line " + i); return "done" }',
      null,
      {},
    );
    expect(flood.ok).toBe(true);
    expect(flood.logs!.length).toBeLessThan(3000);
    expect(flood.logs!.at(-1)).toBe("[more output was dropped: the tool may log 16 KiB per run]");
    expect((await runRuntimeTool("function run() { return 1 }", null, {})).logs).toBeUndefined();
  });
});

describe("time", () => {
  it("interrupts an infinite loop as TIMEOUT, and the server's loop turns meanwhile and after", async () => {
    const { result, ticks } = await ticksDuring(() =>
      runRuntimeTool('function run() { console.log("started"); for (;;) {} }', null, {}, QUICK),
    );
    // Its logs came back: QuickJS's interrupt ended it, not the worker's termination.
    expect(result).toMatchObject({
      ok: false,
      error: { code: "TIMEOUT", message: "the tool ran longer than 300 ms and was stopped" },
      logs: ["started"],
    });
    expect(ticks).toBeGreaterThan(0);
    expect(await new Promise((resolve) => setImmediate(() => resolve("still here")))).toBe("still here");
    expect(await ok("function run() { return 'next' }")).toBe("next");
  });

  it("says TIMEOUT in the default limits' terms", async () => {
    const r = await failure("async function run() { await null; while (true) {} }");
    expect(r).toEqual({ code: "TIMEOUT", message: `the tool ran longer than ${DEFAULT_SANDBOX_LIMITS.timeoutMs} ms and was stopped` });
  });

  it("stops a built-in that loops without asking QuickJS's interrupt, by terminating its worker", async () => {
    // indexOf over an array-like of 2^53-1 elements runs natively for hours.
    const { result, ticks } = await ticksDuring(() =>
      runRuntimeTool(
        'function run() { console.log("started"); return Array.prototype.indexOf.call({ length: 2 ** 53 - 1 }, 1) }',
        null,
        {},
        QUICK,
      ),
    );
    expect(result).toMatchObject({ ok: false, error: { code: "TIMEOUT", message: "the tool ran longer than 300 ms and was stopped" } });
    expect(result.logs).toBeUndefined(); // they went with the worker
    expect(ticks).toBeGreaterThan(0);
    expect(await ok("function run() { return 'a new worker' }")).toBe("a new worker");
  });

  it("a looping tool holds up no other tool: each run has its own worker", async () => {
    // Two workers up first, so that the race below is between runs, not between workers starting.
    await Promise.all([ok("function run() {}"), ok("function run() {}")]);
    const order: string[] = [];
    const looping = runRuntimeTool("function run() { for (;;) {} }", null, {}).then((r) => (order.push("looping"), r));
    const others = Promise.all(Array.from({ length: 8 }, (_, i) => runRuntimeTool("function run(n) { return n * n }", i, {}))).then(
      (r) => (order.push("others"), r),
    );
    const [loopResult, results] = await Promise.all([looping, others]);
    expect(loopResult).toMatchObject({ ok: false, error: { code: "TIMEOUT" } });
    expect(results.map((r) => (r.ok ? r.output : r.error.code))).toEqual([0, 1, 4, 9, 16, 25, 36, 49]);
    expect(order).toEqual(["others", "looping"]);
  });

  it("covers the time spent waiting for the host", async () => {
    const r = await failure(
      'async function run(a, rein) { return await rein.readFile("slow") }',
      null,
      { readFile: () => new Promise<string>(() => {}) },
      QUICK,
    );
    expect(r.code).toBe("TIMEOUT");
  });
});

describe("memory and stack", () => {
  it("refuses a growing array as OUT_OF_MEMORY", async () => {
    const bomb = 'function run() { const keep = []; const chunk = "x".repeat(1 << 16); for (;;) keep.push(chunk + keep.length) }';
    // Time to spare: filling 32 MiB takes QuickJS a few hundred ms, and this is about memory.
    expect(await failure(bomb, null, {}, { timeoutMs: 10_000 })).toEqual({
      code: "OUT_OF_MEMORY",
      message: "the tool used more than 32 MiB of memory and was stopped",
    });
    expect(await failure(bomb, null, {}, { memoryBytes: 8 * 1024 * 1024 })).toEqual({
      code: "OUT_OF_MEMORY",
      message: "the tool used more than 8 MiB of memory and was stopped",
    });
  });

  it("refuses one huge allocation and a string doubled without end", async () => {
    expect((await failure('function run() { return "x".repeat(1 << 28).length }')).code).toBe("OUT_OF_MEMORY");
    expect((await failure("function run() { return new ArrayBuffer(1 << 30).byteLength }")).code).toBe("OUT_OF_MEMORY");
    expect(await failure('function run() { let s = "x"; for (;;) s += s }')).toEqual({
      code: "OUT_OF_MEMORY",
      message: "the tool built a string longer than the sandbox allows and was stopped",
    });
  });

  it("refuses recursion and nesting deeper than the stack", async () => {
    const message = "the tool nested calls or data deeper than its 256 KiB stack allows and was stopped";
    expect(await failure("function run() { function f() { return f() + 1 } return f() }")).toEqual({ code: "OUT_OF_MEMORY", message });
    // 1,000 frames fit the default stack, not a 64 KiB one.
    const deep = "function run() { function f(n) { return n === 0 ? 0 : 1 + f(n - 1) } return f(1000) }";
    expect(await ok(deep)).toBe(1000);
    expect(await failure(deep, null, {}, { stackBytes: 64 * 1024 })).toEqual({
      code: "OUT_OF_MEMORY",
      message: message.replace("256 KiB", "64 KiB"),
    });
    expect(await failure('function run() { return JSON.parse("[".repeat(100000)) }')).toEqual({ code: "OUT_OF_MEMORY", message });
    expect(await failure('function run() { return eval("(".repeat(100000) + "1" + ")".repeat(100000)) }')).toEqual({
      code: "OUT_OF_MEMORY",
      message,
    });
  });
});

describe("nothing of the host is inside", () => {
  it("has no require, process, fetch, timers, modules, WebAssembly or other host objects", async () => {
    const names = [
      "require",
      "process",
      "fetch",
      "XMLHttpRequest",
      "WebSocket",
      "setTimeout",
      "setInterval",
      "setImmediate",
      "queueMicrotask",
      "std",
      "os",
      "Buffer",
      "WebAssembly",
      "module",
      "exports",
      "global",
      "__dirname",
      "Deno",
      "Bun",
      "print",
      "scriptArgs",
      "navigator",
      "Atomics",
      "importScripts",
    ];
    const got = await ok(`function run(a) { return a.names.map((n) => typeof globalThis[n] + ":" + eval("typeof " + n)) }`, { names });
    expect(got).toEqual(names.map(() => "undefined:undefined"));
  });

  it("has exactly ECMAScript's globals, console and the tool's own", async () => {
    const globals = (await ok("function run() { return Object.getOwnPropertyNames(globalThis).sort() }")) as string[];
    const builtins = [
      "AggregateError",
      "Array",
      "ArrayBuffer",
      "BigInt",
      "BigInt64Array",
      "BigUint64Array",
      "Boolean",
      "DataView",
      "Date",
      "Error",
      "EvalError",
      "FinalizationRegistry",
      "Float16Array",
      "Float32Array",
      "Float64Array",
      "Function",
      "Infinity",
      "Int16Array",
      "Int32Array",
      "Int8Array",
      "InternalError",
      "Iterator",
      "JSON",
      "Map",
      "Math",
      "NaN",
      "Number",
      "Object",
      "Promise",
      "Proxy",
      "RangeError",
      "ReferenceError",
      "Reflect",
      "RegExp",
      "Set",
      "SharedArrayBuffer",
      "String",
      "Symbol",
      "SyntaxError",
      "TypeError",
      "URIError",
      "Uint16Array",
      "Uint32Array",
      "Uint8Array",
      "Uint8ClampedArray",
      "WeakMap",
      "WeakRef",
      "WeakSet",
      "decodeURI",
      "decodeURIComponent",
      "encodeURI",
      "encodeURIComponent",
      "escape",
      "eval",
      "globalThis",
      "isFinite",
      "isNaN",
      "parseFloat",
      "parseInt",
      "undefined",
      "unescape",
    ];
    expect(globals).toEqual([...builtins, "console", "run"].sort());
  });

  it("refuses import() and import statements, and a constructor climb finds no process", async () => {
    expect(await ok('async function run() { try { await import("fs"); return "loaded" } catch (e) { return String(e) } }')).toBe(
      "ReferenceError: could not load module 'fs'",
    );
    const statement = await failure('import fs from "fs";\nfunction run() { return 1 }');
    expect(statement.code).toBe("BAD_SOURCE");
    expect(await failure('function run() { return this.constructor.constructor("return process")().pid }')).toMatchObject({
      code: "THREW",
      message: expect.stringContaining("ReferenceError: 'process' is not defined"),
    });
    expect(await ok('function run() { return new Function("return this")() === globalThis }')).toBe(true);
  });

  it("starts every call fresh: nothing one run leaves behind is seen by the next", async () => {
    await ok(
      "var counter = 1; function run() { globalThis.leaked = 'yes'; Object.prototype.polluted = 1; Array.prototype.push = null; return 1 }",
    );
    expect(await ok("function run() { return [typeof leaked, typeof counter, ({}).polluted, [].push === null] }")).toEqual([
      "undefined",
      "undefined",
      null,
      false,
    ]);
  });
});

describe("a tool's errors", () => {
  it("a thrown error is THREW with its message and line", async () => {
    expect(await failure('\n\nfunction run() {\n  throw new RangeError("bad row 7");\n}')).toEqual({
      code: "THREW",
      message: "the tool threw RangeError: bad row 7 (line 4, column 23)",
    });
    expect(await failure('function run() { throw "just a string" }')).toEqual({ code: "THREW", message: "the tool threw just a string" });
    expect(await failure("function run() { throw { code: 42 } }")).toEqual({ code: "THREW", message: 'the tool threw {"code":42}' });
    expect(await failure('async function run() { await null; throw new Error("later") }')).toMatchObject({
      code: "THREW",
      message: expect.stringMatching(/^the tool threw Error: later \(line 1/),
    });
    expect(await failure('throw new Error("at load")\nfunction run() {}')).toMatchObject({
      code: "THREW",
      message: expect.stringMatching(/^the source threw while loading: Error: at load/),
    });
  });

  it("cannot pass its own error off as a host's or as a timeout", async () => {
    expect((await failure('function run() { const e = new Error("x"); e.name = "HostError"; throw e }')).code).toBe("THREW");
    expect((await failure('function run() { throw new InternalError("interrupted") }')).code).toBe("THREW");
  });

  it("a return value JSON cannot hold is BAD_OUTPUT", async () => {
    const cases: Array<[string, string]> = [
      [
        "function run() { return () => 1 }",
        "the tool's return value is not JSON: TypeError: the value is a function, which JSON cannot hold",
      ],
      [
        "function run() { return { rows: [1, { f() {} }] } }",
        'the tool\'s return value is not JSON: TypeError: the value at key "f" is a function, which JSON cannot hold',
      ],
      [
        "function run() { return Symbol('s') }",
        "the tool's return value is not JSON: TypeError: the value is a symbol, which JSON cannot hold",
      ],
      ["function run() { const o = {}; o.self = o; return o }", "the tool's return value is not JSON: TypeError: circular reference"],
      ["function run() { return 10n }", "the tool's return value is not JSON: TypeError: Do not know how to serialize a BigInt"],
      [
        "function run() { return { toJSON() { return undefined } } }",
        "the tool's return value has no JSON form (its toJSON returned undefined)",
      ],
      [
        "function run() { return new Promise(() => {}) }",
        "run returned a promise that never settles: it waits for something other than rein.readFile, and nothing else can happen in the sandbox",
      ],
    ];
    for (const [source, message] of cases) expect(await failure(source)).toEqual({ code: "BAD_OUTPUT", message });
  });

  it("serialises with JSON the tool cannot replace", async () => {
    expect(await ok('function run() { JSON.stringify = () => "forged"; return { a: 1 } }')).toEqual({ a: 1 });
  });

  it("caps the output at maxOutputBytes, counted in UTF-8", async () => {
    const big = await failure('function run() { return "x".repeat(300 * 1024) }');
    expect(big).toEqual({ code: "BAD_OUTPUT", message: "the tool's return value is more than 256 KiB as JSON; return less, or a summary" });
    // '"xxxxxxxxxx"' is 12 bytes; "é" is 2 bytes in UTF-8 though one character.
    expect(await ok('function run() { return "x".repeat(10) }', null, {}, { maxOutputBytes: 12 })).toBe("xxxxxxxxxx");
    expect((await failure('function run() { return "x".repeat(11) }', null, {}, { maxOutputBytes: 12 })).code).toBe("BAD_OUTPUT");
    expect((await failure('function run() { return "é".repeat(6) }', null, {}, { maxOutputBytes: 12 })).code).toBe("BAD_OUTPUT");
  });
});

describe("checking a source", () => {
  it("accepts a source that defines run, without calling it", async () => {
    expect(await checkRuntimeToolSource(CSV_SUM)).toBeNull();
    expect(await checkRuntimeToolSource("function run() { for (;;) {} }")).toBeNull();
  });

  it("says what is wrong, with the line of a syntax error", async () => {
    expect(await checkRuntimeToolSource("function run(args) {\n  return args.x +\n}")).toBe(
      "the source does not compile: SyntaxError: unexpected token in expression: '}' (line 3, column 1)",
    );
    expect(await checkRuntimeToolSource("function main() {}")).toBe("the source does not define a function run(args, rein)");
    expect(await checkRuntimeToolSource("var run = 5")).toBe("run is a number, not a function: define function run(args, rein)");
    expect(await checkRuntimeToolSource("export function run() {}")).toBe(
      "the source does not compile: SyntaxError: unsupported keyword: export (line 1, column 1); the source is a script: define `function run(args, rein)` without import or export",
    );
    expect(await checkRuntimeToolSource("for (;;) {}\nfunction run() {}")).toBe(
      "the source's top level ran longer than 1000 ms and was stopped: define run(args, rein) and do the work there",
    );
    expect(await checkRuntimeToolSource(`// ${"x".repeat(300 * 1024)}\nfunction run() {}`)).toMatch(
      /^the source is \d+ bytes; a runtime tool may be at most 256 KiB$/,
    );
  });

  it("runRuntimeTool refuses the same sources as BAD_SOURCE", async () => {
    expect(await failure("function run( {")).toMatchObject({
      code: "BAD_SOURCE",
      message: expect.stringMatching(/^the source does not compile: SyntaxError: .* \(line 1, column \d+\)$/),
    });
    expect(await failure("function main() {}")).toEqual({
      code: "BAD_SOURCE",
      message: "the source does not define a function run(args, rein)",
    });
    expect(await failure(42 as unknown as string)).toEqual({ code: "BAD_SOURCE", message: "the source must be a string of JavaScript" });
  });

  it("refuses limits that are not positive numbers", async () => {
    await expect(runRuntimeTool("function run() {}", null, {}, { timeoutMs: 0 })).rejects.toThrow(
      "Sandbox limit timeoutMs must be a positive number, got 0",
    );
    await expect(runRuntimeTool("function run() {}", null, {}, { memoryBytes: Number.NaN })).rejects.toThrow(RangeError);
  });
});

describe("rein.readFile", () => {
  it("is absent without a readFile host, and reaching for it is CAPABILITY_DENIED", async () => {
    expect(await ok('function run(a, rein) { return [typeof rein.readFile, "readFile" in rein, Object.keys(rein)] }')).toEqual([
      "undefined",
      false,
      [],
    ]);
    expect(await failure('async function run(a, rein) { return await rein.readFile("data.csv") }')).toEqual({
      code: "CAPABILITY_DENIED",
      message:
        "the tool used rein.readFile, which needs the workspace:read capability, and this run was not lent it: TypeError: not a function (line 1, column 57)",
    });
  });

  it("returns the host's text, and the host's error as HOST_ERROR with its message only", async () => {
    const files: Record<string, string> = { "a.txt": "alpha" };
    const readFile = async (p: string) => {
      if (!(p in files)) throw new Error(`No such file: ${p}`);
      return files[p];
    };
    expect(await ok('async function run(a, rein) { return (await rein.readFile("a.txt")).toUpperCase() }', null, { readFile })).toBe(
      "ALPHA",
    );
    const err = await failure('async function run(a, rein) { return await rein.readFile("b.txt") }', null, { readFile });
    expect(err).toEqual({ code: "HOST_ERROR", message: 'rein.readFile("b.txt") failed: No such file: b.txt' });
    // The tool may catch it; then it is not the run's error, and no server stack reaches the tool either.
    expect(
      await ok(
        'async function run(a, rein) { try { await rein.readFile("b.txt") } catch (e) { return [e.message, String(e.stack).includes(".ts")] } }',
        null,
        { readFile },
      ),
    ).toEqual(["No such file: b.txt", false]);
  });

  it("caps what one read may bring in and how often it may be called", async () => {
    const readFile = async () => "x".repeat(3 * 1024 * 1024);
    expect(
      await failure(
        'async function run(a, rein) { return (await rein.readFile("big")).length }',
        null,
        { readFile },
        { memoryBytes: 8 * 1024 * 1024 },
      ),
    ).toEqual({
      code: "HOST_ERROR",
      message: 'rein.readFile("big") failed: the file is larger than 2 MiB, the most a tool may read at once',
    });
    const many = 'async function run(a, rein) { for (let i = 0; i < 150; i++) await rein.readFile("f" + i); return "read all" }';
    expect(await failure(many, null, { readFile: async () => "" })).toMatchObject({
      code: "THREW",
      message: expect.stringContaining("rein.readFile may be called at most 100 times in one run"),
    });
  });

  it("refuses a path that is not a string before the host sees it", async () => {
    const seen: unknown[] = [];
    const readFile = async (p: string) => (seen.push(p), "");
    expect(
      await failure("async function run(a, rein) { return await rein.readFile({ toString() { return 'a' } }) }", null, { readFile }),
    ).toMatchObject({
      code: "THREW",
      message: expect.stringContaining("TypeError: rein.readFile(path) takes a string"),
    });
    expect(seen).toEqual([]);
  });
});
