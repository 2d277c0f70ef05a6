// Promotion (docs/extensions.md#promotion): a runtime tool trusted after its
// uses becomes an extension through the same gate. Rein writes the package: the
// tool's source as lib/tool.js, an index.js registering it, and tests from its
// trigger cases and its recorded successful uses (args and output, as the run's
// tool.call / tool.result events hold them).
import { TriggerCase } from "../runtime-tools/proposal";
import { MAX_FILE_BYTES, extensionPackage, type ExtensionPackage } from "./package";

/** The stored runtime tool, as its Improvement row holds it. */
export interface RuntimeToolRow {
  name: string;
  version: number;
  description: string;
  source: string;
  /** JSON text or the schema. */
  argsSchema: string | Record<string, unknown> | null;
  /** JSON text or the list. */
  capabilities: string | string[];
  replayClass: string | null;
  /** JSON text or the trigger cases. */
  cases: string | unknown[];
}

/** One call of the tool in a run. */
export interface RecordedUse {
  args: unknown;
  ok: boolean;
  output?: unknown;
}

/** Recorded uses become at most this many tests, distinct by their arguments. */
export const MAX_USE_TESTS = 20;

const json = <T>(v: string | T, fallback: T): T => {
  if (typeof v !== "string") return v ?? fallback;
  try {
    return JSON.parse(v) as T;
  } catch {
    return fallback;
  }
};

/** csv_column_sum → csv-column-sum. */
export function extensionNameOf(toolName: string): string {
  return toolName.replace(/_+/g, "-").replace(/-+$/, "");
}

/**
 * Same rule as the trigger cases' gate (runtime-tools/cases.ts difference):
 * objects match on the expected keys, numbers to a millionth.
 */
const MATCHES = `function matches(expected, actual, at) {
  if (typeof expected === "number" && typeof actual === "number") {
    if (Math.abs(expected - actual) > 1e-6 * Math.max(1, Math.abs(expected))) throw new Error(at + " is " + actual + ", expected " + expected);
    return;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) throw new Error(at + " is " + JSON.stringify(actual) + ", expected " + JSON.stringify(expected));
    expected.forEach((e, i) => matches(e, actual[i], at + "[" + i + "]"));
    return;
  }
  if (expected && typeof expected === "object") {
    if (!actual || typeof actual !== "object" || Array.isArray(actual)) throw new Error(at + " is " + JSON.stringify(actual) + ", expected an object");
    for (const k of Object.keys(expected)) matches(expected[k], actual[k], at + "." + k);
    return;
  }
  assert.equal(actual, expected, at + " is " + JSON.stringify(actual) + ", expected " + JSON.stringify(expected));
}
`;

function caseTest(tool: string, name: string, c: Pick<TriggerCase, "args" | "expect">): string {
  const call = `tools.${tool}(${JSON.stringify(c.args)})`;
  if (c.expect.ok) {
    const check =
      c.expect.output === undefined ? `await ${call};` : `matches(${JSON.stringify(c.expect.output)}, await ${call}, "output");`;
    return `test(${JSON.stringify(name)}, async () => {\n  ${check}\n});\n`;
  }
  const wanted = c.expect.errorIncludes === undefined ? "" : `, ${JSON.stringify(c.expect.errorIncludes)}`;
  return `test(${JSON.stringify(name)}, async () => {\n  await assert.throws(() => ${call}${wanted});\n});\n`;
}

/** The package, built and validated; the gate (runExtensionGate) decides whether it may be installed. */
export function extensionFromRuntimeTool(row: RuntimeToolRow, uses: RecordedUse[] = []): ExtensionPackage {
  const name = extensionNameOf(row.name);
  const version = `${row.version}.0.0`;
  const schema = json<Record<string, unknown>>(row.argsSchema ?? "{}", {});
  const capabilities = json<string[]>(row.capabilities, []);
  const cases = json<unknown[]>(row.cases, []).flatMap((c) => {
    const parsed = TriggerCase.safeParse(c);
    return parsed.success ? [parsed.data] : [];
  });

  const index = `// ${name}: the runtime tool ${row.name} v${row.version}, promoted to an extension.
const run = require("./lib/tool.js");

module.exports = {
  name: ${JSON.stringify(name)},
  version: ${JSON.stringify(version)},
  setup(api) {
    api.registerTool({
      name: ${JSON.stringify(row.name)},
      description: ${JSON.stringify(row.description)},
      argsSchema: ${JSON.stringify(schema)},
      run,
    });
  },
};
`;
  const files: Record<string, string> = {
    "index.js": index,
    // The runtime tool's script defines run at its top level; here that is the module's scope.
    "lib/tool.js": `${row.source}\nmodule.exports = run;\n`,
  };
  if (cases.length) files["test/cases.test.js"] = MATCHES + cases.map((c) => caseTest(row.name, c.name, c)).join("\n");

  const seen = new Set<string>();
  const useTests: string[] = [];
  for (const use of uses) {
    if (!use.ok || use.output === undefined || useTests.length >= MAX_USE_TESTS) continue;
    const key = JSON.stringify(use.args);
    if (seen.has(key)) continue;
    seen.add(key);
    const test = caseTest(row.name, `recorded use ${useTests.length + 1}`, {
      args: use.args as Record<string, unknown>,
      expect: { ok: true, output: use.output },
    });
    if (Buffer.byteLength(useTests.join("\n") + test, "utf8") + MATCHES.length > MAX_FILE_BYTES) break;
    useTests.push(test);
  }
  if (useTests.length) files["test/uses.test.js"] = MATCHES + useTests.join("\n");

  return extensionPackage({
    manifest: {
      name,
      version,
      description: `${row.description}`.slice(0, 1000).padEnd(10, "."),
      capabilities,
      tools: [row.name],
      ...(row.replayClass ? { replay: { [row.name]: row.replayClass } } : {}),
    },
    files,
  });
}
