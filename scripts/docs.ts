// `npm run docs`: rewrites the generated blocks of the docs from the code, so
// they cannot drift: the environment variables (docs/configuration.md) from
// the registry in server/config/env.ts, the REST routes (docs/api.md) from the
// OpenAPI description and its error codes from lib/error-codes.ts, the CLI's commands (docs/cli.md) from its command table;
// and the REST client's types (lib/rest-api.generated.ts) from the OpenAPI description, by openapi-typescript.
// `npm run docs -- --check` changes nothing; it exits with 1 and names each
// stale file. A block sits between <!-- generated:NAME --> and <!-- /generated:NAME -->.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";
import { ENV_VARIABLES, type EnvGroup } from "@/server/config";
import { openApi } from "@/server/channels";
import { ERROR_CODES, ERROR_TABLE } from "@/lib/error-codes";
import { COMMANDS, type CliCommand } from "./cli-commands";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** A table cell: one line, pipes escaped (also inside code spans, as GitHub's tables want). */
const cell = (text: string) => text.replace(/\s*\n\s*/g, " ").replace(/\|/g, "\\|");
const code = (text: string) => "`" + text + "`";
const table = (head: string[], rows: string[][]) =>
  [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.map(cell).join(" | ")} |`)].join("\n");

const GROUPS: Array<{ group: EnvGroup; title: string; intro: string }> = [
  { group: "server", title: "Server", intro: "Set by the person who runs Rein. The server checks every one of them when it starts." },
  { group: "cli", title: "CLI", intro: "Read by `npm run rein`." },
  { group: "tests", title: "Tests and benchmarks", intro: "Read by the tests, the browser tests and the `npm run bench:*` scripts." },
  { group: "internal", title: "Internal", intro: "Set by Rein for its own child processes. Never set them yourself." },
];

/** A default that is one literal value shows as code; one in words stays words. */
const defaultCell = (text: string) => (/\s/.test(text) || text === "none" ? text : code(text));

export function renderConfig(): string {
  return GROUPS.map(({ group, title, intro }) => {
    const vars = ENV_VARIABLES.filter((v) => v.group === group).sort((a, b) => a.name.localeCompare(b.name));
    const rows = vars.map((v) => [code(v.name), defaultCell(v.default), v.description]);
    const checked = group === "server" ? [] : vars.filter((v) => v.atStart).map((v) => code(v.name));
    const also = checked.length
      ? ` The server reads ${checked.join(" and ")} too, and checks ${checked.length === 1 ? "it" : "them"} when it starts.`
      : "";
    return [`### ${title}`, "", intro + also, "", table(["Variable", "Default", "What it does"], rows)].join("\n");
  }).join("\n\n");
}

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

interface Operation {
  summary: string;
  "x-rein-role": string;
}

/** Every operation of the OpenAPI description: method, path, least role, summary. */
export function restOperations(): Array<{ method: string; path: string; role: string; summary: string }> {
  const paths = openApi().paths as Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>;
  return Object.keys(paths)
    .sort()
    .flatMap((p) =>
      METHODS.filter((m) => paths[p][m]).map((m) => ({
        method: m.toUpperCase(),
        path: p,
        role: paths[p][m]!["x-rein-role"],
        summary: paths[p][m]!.summary,
      })),
    );
}

export function renderRest(): string {
  const rows = restOperations().map((o) => [code(o.method), code(o.path), o.role === "none" ? "none (no token)" : o.role, o.summary]);
  return table(["Method", "Path", "Least role", "What it does"], rows);
}

/** The error codes from the one table, by HTTP status. */
export function renderErrors(): string {
  const rows = [...ERROR_CODES]
    .sort((a, b) => ERROR_TABLE[a].status - ERROR_TABLE[b].status)
    .map((c) => [String(ERROR_TABLE[c].status), code(c), code(ERROR_TABLE[c].trpc), ERROR_TABLE[c].when]);
  return table(["Status", "Code", "tRPC code", "When"], rows);
}

const byWords = (a: CliCommand, b: CliCommand) => a.command.localeCompare(b.command) || (a.sub ?? "").localeCompare(b.sub ?? "");

export function renderCli(): string {
  const rows = [...COMMANDS]
    .sort(byWords)
    .map((c) => [code(c.command), c.sub ? code(c.sub) : "", c.usage ? code(c.usage) : "", c.description]);
  return table(["Command", "Sub-command", "Options", "What it does"], rows);
}

export const GENERATED = [
  { file: "docs/configuration.md", name: "config", render: renderConfig },
  { file: "docs/api.md", name: "rest", render: renderRest },
  { file: "docs/api.md", name: "errors", render: renderErrors },
  { file: "docs/cli.md", name: "cli", render: renderCli },
] as const;

/** `text` with the block NAME replaced by `content`; throws when the markers are missing. */
export function replaceBlock(text: string, name: string, content: string, file: string): string {
  const open = `<!-- generated:${name} -->`;
  const close = `<!-- /generated:${name} -->`;
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start < 0 || end < start)
    throw new Error(`${file} has no ${open} ... ${close} block; add the two lines where the generated text belongs`);
  return `${text.slice(0, start + open.length)}\n${content}\n${text.slice(end)}`;
}

/** Each generated file's current text and the text it should have (a file may hold several blocks). */
export function generatedDocs(root = ROOT): Array<{ file: string; current: string; wanted: string }> {
  const files = [...new Set(GENERATED.map((g) => g.file))];
  return files.map((file) => {
    const current = fs.readFileSync(path.join(root, file), "utf8");
    const wanted = GENERATED.filter((g) => g.file === file).reduce(
      (text, { name, render }) => replaceBlock(text, name, render(), file),
      current,
    );
    return { file, current, wanted };
  });
}

/** The typed REST client's types, generated by openapi-typescript from the OpenAPI description (docs/api.md#contract). */
export const CLIENT_TYPES_FILE = "lib/rest-api.generated.ts";

export async function renderClientTypes(): Promise<string> {
  const ast = await openapiTS(openApi() as unknown as Parameters<typeof openapiTS>[0], { alphabetize: false });
  return `// Generated by npm run docs from the OpenAPI description of REST v1 (openapi-typescript); do not edit.\n${astToString(ast)}`;
}

/** The client types' current text and the text they should have. */
export async function generatedClientTypes(root = ROOT): Promise<{ file: string; current: string; wanted: string }> {
  const full = path.join(root, CLIENT_TYPES_FILE);
  const current = fs.existsSync(full) ? fs.readFileSync(full, "utf8") : "";
  return { file: CLIENT_TYPES_FILE, current, wanted: await renderClientTypes() };
}

async function main(argv: string[]) {
  const check = argv.includes("--check");
  const stale = [...generatedDocs(), await generatedClientTypes()].filter((d) => d.current !== d.wanted);
  if (check) {
    for (const d of stale) console.error(`${d.file} is stale: run npm run docs`);
    process.exitCode = stale.length ? 1 : 0;
    return;
  }
  for (const d of stale) {
    fs.writeFileSync(path.join(ROOT, d.file), d.wanted);
    console.log(`${d.file} rewritten`);
  }
  if (!stale.length) console.log("The generated docs are current");
}

if (process.argv[1]?.endsWith(path.join("scripts", "docs.ts")))
  main(process.argv.slice(2)).catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
