// The scripted demo extension: csv-tools, one tool summing a CSV column (the
// improver's runtime tool, grown up), a helper module, a skill and 3 tests.
import type { ExtensionPackage } from "./package";

const INDEX = `// csv-tools: sums a column of a CSV text.
const { parseCsv } = require("./lib/csv.js");

module.exports = {
  name: "csv-tools",
  version: "1.0.0",
  setup(api) {
    api.registerTool({
      name: "csv_column_sum",
      description: "Sums the numbers in one column of a CSV text (quoted fields allowed); use it instead of a shell one-liner.",
      argsSchema: {
        type: "object",
        properties: { csv: { type: "string" }, column: { type: "string", minLength: 1 } },
        required: ["csv", "column"],
        additionalProperties: false,
      },
      run(args) {
        const [header, ...rows] = parseCsv(args.csv);
        const col = header ? header.indexOf(args.column) : -1;
        if (col < 0) throw new Error("no column " + args.column);
        let sum = 0;
        for (const row of rows) {
          const n = Number(row[col]);
          if (Number.isNaN(n)) throw new Error("not a number in column " + args.column + ": " + row[col]);
          sum += n;
        }
        // The same answer as the improver's runtime tool of this name, so an agent's use of it reads the same.
        return { column: args.column, rows: rows.length, total: Math.round(sum * 100) / 100 };
      },
    });
    api.registerSkill(require("./skills/csv-sums/SKILL.md"));
  },
};
`;

const CSV = `// Rows of fields; fields may be quoted, with commas and "" inside.
function parseCsv(text) {
  const rows = [];
  let fields = [], field = "", quoted = false;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text[i] : "\\n";
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i++; }
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") { fields.push(field); field = ""; }
    else if (c === "\\n" || c === "\\r") {
      if (c === "\\r" && text[i + 1] === "\\n") i++;
      fields.push(field);
      if (fields.length > 1 || fields[0] !== "") rows.push(fields);
      fields = []; field = "";
    } else field += c;
  }
  return rows;
}
module.exports = { parseCsv };
`;

const SKILL = `---
name: csv-sums
description: Sum a CSV column with csv_column_sum instead of awk or Python.
tags: [csv]
---
When a task asks for a total of a column in a CSV file, read the file and
call csv_column_sum with its text and the column's header.
`;

const TESTS = `test("sums a column", () => {
  assert.equal(tools.csv_column_sum({ csv: "a,b\\n1,2\\n3,4\\n", column: "b" }).total, 6);
});

test("quoted fields keep their commas", () => {
  const csv = 'name,amount\\r\\n"Smith, Jane",10.5\\r\\n"Lee, Ann",-2.25\\r\\n';
  assert.equal(tools.csv_column_sum({ csv, column: "amount" }).total, 8.25);
});

test("an unknown column is an error", () => {
  assert.throws(() => tools.csv_column_sum({ csv: "a\\n1\\n", column: "z" }), "no column z");
});
`;

/** Frozen all the way down: shared by tests, the demo and promotion. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") for (const v of Object.values(value)) deepFreeze(v);
  return Object.freeze(value);
}

export const CSV_TOOLS_EXTENSION: ExtensionPackage = deepFreeze({
  manifest: {
    name: "csv-tools",
    version: "1.0.0",
    description: "CSV helpers for agents: sum a column of a CSV text without a shell.",
    capabilities: [],
    tools: ["csv_column_sum"],
    skills: ["csv-sums"],
    replay: { csv_column_sum: "pure" as const },
  },
  files: {
    "index.js": INDEX,
    "lib/csv.js": CSV,
    "skills/csv-sums/SKILL.md": SKILL,
    "test/csv.test.js": TESTS,
  },
});
