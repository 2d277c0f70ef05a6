// Promotion: the improver's demo runtime tool written out as an extension,
// with tests from its trigger cases and recorded uses, through the gate.
import { afterAll, describe, expect, it } from "vitest";
import { BUILTIN_SCENARIOS } from "@/server/models";
import { closeSandboxWorkers } from "../sandbox";
import { runExtensionGate } from "./gate";
import { extensionFromRuntimeTool, extensionNameOf, type RuntimeToolRow } from "./promote";

afterAll(() => closeSandboxWorkers());

const proposal = BUILTIN_SCENARIOS.improver.turns[0].toolCalls![0].args as Record<string, unknown>;
const row: RuntimeToolRow = {
  name: proposal.name as string,
  version: 3,
  description: proposal.description as string,
  source: proposal.source as string,
  argsSchema: JSON.stringify(proposal.argsSchema),
  capabilities: "[]",
  replayClass: "pure",
  cases: JSON.stringify(proposal.cases),
};

describe("a runtime tool promoted to an extension", () => {
  it("is written as a package whose gate passes, with a test per trigger case and per distinct successful use", async () => {
    const uses = [
      { args: { csv: "a,b\n1,2\n3,4\n", column: "b" }, ok: true, output: { column: "b", rows: 2, total: 6 } },
      { args: { csv: "a,b\n1,2\n3,4\n", column: "b" }, ok: true, output: { column: "b", rows: 2, total: 6 } },
      { args: { csv: "a\nx\n", column: "a" }, ok: false },
    ];
    const pkg = extensionFromRuntimeTool(row, uses);
    expect(pkg.manifest).toMatchObject({
      name: "csv-column-sum",
      version: "3.0.0",
      tools: ["csv_column_sum"],
      replay: { csv_column_sum: "pure" },
    });
    expect(Object.keys(pkg.files).sort()).toEqual(["index.js", "lib/tool.js", "test/cases.test.js", "test/uses.test.js"]);
    const gate = await runExtensionGate(pkg);
    expect(gate.results.map((r) => [r.file, r.name, r.ok])).toEqual([
      ["test/cases.test.js", "the export from the friction (quoted commas)", true],
      ["test/cases.test.js", "an escaped quote inside a quoted field", true],
      ["test/cases.test.js", "a column that does not exist is an error", true],
      ["test/uses.test.js", "recorded use 1", true],
    ]);
    expect(gate.ok).toBe(true);
  });

  it("does not pass the gate when a recorded use no longer holds", async () => {
    const gate = await runExtensionGate(
      extensionFromRuntimeTool(row, [{ args: { csv: "a\n1\n2\n", column: "a" }, ok: true, output: { total: 4 } }]),
    );
    expect(gate.ok).toBe(false);
    expect(gate.results.find((r) => !r.ok)?.message).toMatch(/^Error: output\.total is 3, expected 4/);
  });

  it("names the extension after the tool", () => {
    expect(extensionNameOf("csv_column_sum")).toBe("csv-column-sum");
    expect(extensionNameOf("a__b_")).toBe("a-b");
  });
});
