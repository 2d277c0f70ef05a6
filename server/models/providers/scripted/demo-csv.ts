// The self-improvement demo (docs/improvements.md), played by the scripted model.
// demo-csv adds up a CSV column. Without help it struggles: plain field
// splitting breaks on a quoted comma, three times the same way, before it
// writes a parser of its own. Rein sees that friction and starts the
// improver, whose runtime tool the next demo-csv run finds and uses.
import type { Scenario } from "../../types";

export const SALES_CSV = `id,customer,amount
1,Ada Lovelace,120.50
2,"Hopper, Grace",80.25
3,Alan Turing,42.00
4,"Liskov, Barbara",57.25
5,Edsger Dijkstra,100.00
`;

/** The runtime tool the improver writes, as JavaScript for the QuickJS sandbox. */
export const CSV_TOOL_NAME = "csv_column_sum";

const CSV_PARSER = `function parseCsv(text) {
  const rows = [];
  let row = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') { field += '"'; i++; } else quoted = false;
      } else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") { row.push(field); field = ""; }
    else if (c === "\\n" || c === "\\r") {
      if (c === "\\r" && text[i + 1] === "\\n") i++;
      row.push(field); rows.push(row); row = []; field = "";
    } else field += c;
  }
  if (field !== "" || row.length) { row.push(field); rows.push(row); }
  return rows.filter((r) => r.length > 1 || r[0] !== "");
}
`;

export const CSV_TOOL_SOURCE = `${CSV_PARSER}
/** Adds up one numeric column; quoted fields may hold commas. */
function run(args) {
  const rows = parseCsv(args.csv);
  const header = (rows.shift() || []).map((h) => h.trim());
  const index = header.indexOf(args.column);
  if (index < 0) throw new Error("there is no column named " + args.column + " (columns: " + header.join(", ") + ")");
  let total = 0;
  rows.forEach((r, n) => {
    const cell = (r[index] || "").trim();
    const value = Number(cell);
    if (cell === "" || !Number.isFinite(value)) throw new Error("row " + (n + 2) + ": " + JSON.stringify(cell) + " is not a number");
    total += value;
  });
  return { column: args.column, rows: rows.length, total: Math.round(total * 100) / 100 };
}
`;

const SUM_SCRIPT = `// Adds up one column of a CSV file: node scripts/sum.mjs <file> <column>
import { readFileSync } from "node:fs";

${CSV_PARSER}
const [file, column] = process.argv.slice(2);
const rows = parseCsv(readFileSync(file, "utf8"));
const index = rows.shift().map((h) => h.trim()).indexOf(column);
if (index < 0) throw new Error("no column named " + column);
const total = rows.reduce((sum, r) => sum + Number(r[index]), 0);
console.log(Math.round(total * 100) / 100);
`;

// The check each attempt makes: a row must have the header's 3 fields.
const fieldCheck = (fs: string) =>
  `awk -F${fs} 'NR > 1 && NF != 3 { printf "line %d: expected 3 fields, found %d\\n", NR, NF > "/dev/stderr"; bad = 1; exit 1 } NR > 1 { s += $3 } END { if (!bad) print s }'`;

const WRITE_DATA = {
  text: "The sales export is below; I'll save it as data/sales.csv and work from there.",
  toolCalls: [{ tool: "write_file", args: { path: "data/sales.csv", content: SALES_CSV } }],
};

export const DEMO_CSV_GOAL = "Add up the amount column of the sales export and write the total to total.txt";

export const DEMO_CSV: Scenario = {
  stopOnError: true,
  turns: [
    WRITE_DATA,
    {
      text: "Summing the third column with awk.",
      toolCalls: [{ tool: "shell", args: { command: `${fieldCheck(",")} data/sales.csv` } }],
      mayFail: true,
    },
    {
      text: "Line 3 has an extra field. Maybe the spaces after the commas confuse the split; trying a separator that eats them.",
      toolCalls: [{ tool: "shell", args: { command: `${fieldCheck("', *'")} data/sales.csv` } }],
      mayFail: true,
    },
    {
      text: "Still an extra field. Perhaps Windows line endings; stripping carriage returns first.",
      toolCalls: [{ tool: "shell", args: { command: `tr -d '\\r' < data/sales.csv | ${fieldCheck(",")}` } }],
      mayFail: true,
    },
    {
      text: "Splitting on commas cannot work: the customer names are quoted and hold commas. Writing a small CSV parser instead.",
      toolCalls: [{ tool: "write_file", args: { path: "scripts/sum.mjs", content: SUM_SCRIPT } }],
    },
    {
      text: "Running it and keeping the total.",
      toolCalls: [{ tool: "shell", args: { command: "node scripts/sum.mjs data/sales.csv amount > total.txt && cat total.txt" } }],
    },
    { text: "Done: total.txt holds the total of the amount column, {{result:shell.output}}" },
  ],
  variants: [
    {
      // Offered once the improver's runtime tool is live for this agent.
      tools: [CSV_TOOL_NAME],
      turns: [
        WRITE_DATA,
        {
          text: `There is a ${CSV_TOOL_NAME} tool for exactly this; it handles quoted fields.`,
          toolCalls: [{ tool: CSV_TOOL_NAME, args: { csv: SALES_CSV, column: "amount" } }],
        },
        {
          text: "Writing the total.",
          toolCalls: [{ tool: "write_file", args: { path: "total.txt", content: `{{result:${CSV_TOOL_NAME}.total}}\n` } }],
        },
        {
          text: `Done: the amount column adds up to {{result:${CSV_TOOL_NAME}.total}} over {{result:${CSV_TOOL_NAME}.rows}} rows; total.txt holds it.`,
        },
      ],
    },
  ],
};

/** The improver's side of the demo: a runtime tool for the friction it was given, tested on its trigger cases. */
export const IMPROVER: Scenario = {
  stopOnError: true,
  turns: [
    {
      text:
        "The friction: every attempt split the rows on commas, and quoted customer names hold commas, so line 3 always has an extra field. " +
        `A runtime tool that parses CSV properly removes the chore: ${CSV_TOOL_NAME}.`,
      toolCalls: [
        {
          tool: "propose_runtime_tool",
          args: {
            name: CSV_TOOL_NAME,
            description: "Adds up one numeric column of CSV text. Quoted fields may contain commas. Use it instead of awk or cut for CSV.",
            argsSchema: {
              type: "object",
              properties: {
                csv: { type: "string", description: "The CSV text, header row first" },
                column: { type: "string", description: "The header of the column to add up" },
              },
              required: ["csv", "column"],
              additionalProperties: false,
            },
            source: CSV_TOOL_SOURCE,
            replayClass: "pure",
            capabilities: [],
            cases: [
              {
                name: "the export from the friction (quoted commas)",
                args: { csv: SALES_CSV, column: "amount" },
                expect: { ok: true, output: { total: 400, rows: 5 } },
              },
              {
                name: "an escaped quote inside a quoted field",
                args: { csv: 'name,amount\n"Say ""hi"", Bob",2.5\nAnn,1\n', column: "amount" },
                expect: { ok: true, output: { total: 3.5 } },
              },
              {
                name: "a column that does not exist is an error",
                args: { csv: "a,b\n1,2\n", column: "amount" },
                expect: { ok: false, errorIncludes: "no column named amount" },
              },
            ],
          },
        },
      ],
    },
    {
      text: "Testing it against its trigger cases.",
      toolCalls: [{ tool: "test_runtime_tool", args: { name: CSV_TOOL_NAME } }],
    },
    { text: "{{result:test_runtime_tool.summary}} The gate decides whether it goes live." },
  ],
};
