// The docs cannot drift from the code: the generated blocks are current; the
// environment variables the sources read, the REST routes the router serves
// and the CLI's commands each have their entry, and every entry is still real;
// what README.md and docs/*.md mention (REIN_* names, CLI commands, /api/v1
// paths, relative links and their #anchors) exists; and the code's comments
// point at docs pages and headings that exist, never at the product
// specification's section numbers, which the repository does not hold.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { ENV } from "@/server/config";
import { ALL_ROUTES, openApi, OPENAPI_PATH, type Route } from "@/server/channels";
import { COMMANDS, commandLine, findCommand, helpText, main } from "../scripts/cli-commands";
import { generatedClientTypes, generatedDocs } from "../scripts/docs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const rel = (f: string) => path.relative(root, f).split(path.sep).join("/");

const RUN_DOCS = "run npm run docs";

// --- the sources ---

const SKIP_DIRS = new Set([
  "node_modules",
  ".next",
  "dist",
  "data",
  "test-results",
  "playwright-report",
  ".git",
  "generated",
  "generated-pg",
  "docs",
  "prisma",
]);

/** Code that runs: TypeScript and JavaScript, without tests (shell scripts are not scanned). */
function sourceFiles(dir = root): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (SKIP_DIRS.has(e.name)) return [];
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    if (!/\.(ts|tsx|mts|mjs|js|cjs)$/.test(e.name) || e.name.endsWith(".d.ts")) return [];
    return /\.(test|spec)\.[a-z]+$/.test(e.name) ? [] : [full];
  });
}

const sources = sourceFiles().map((f) => ({ file: rel(f), text: fs.readFileSync(f, "utf8") }));

/** The operating system's variables and those of the tools Rein runs: not Rein's to document. */
const NOT_REINS = new Set(["PATH", "HOME", "TMPDIR", "USER", "SHELL", "TERM", "LANG", "PWD", "NEXT_TELEMETRY_DISABLED"]);

/** The registry itself, and the generator that prints it, name every variable without reading it. */
const REGISTRY_FILES = new Set(["server/config/env.ts", "scripts/docs.ts"]);

/** Names that look like Rein's variables, and names read from an environment object. */
function variablesIn(text: string): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(/\b(?:REIN|BENCH)_[A-Z0-9_]*[A-Z0-9]\b/g)) names.add(m[0]);
  for (const m of text.matchAll(/\b(?:process\.env|env)(?:\.([A-Z][A-Z0-9_]*)\b|\[\s*["']([A-Z][A-Z0-9_]*)["']\s*\])/g))
    names.add(m[1] ?? m[2]);
  for (const n of NOT_REINS) names.delete(n);
  return names;
}

/** Does the text read the variable: a property (env.X, e.X), an index (env["X"]), or a shell's $X? */
function reads(text: string, name: string): boolean {
  return new RegExp(`(?:\\.${name}\\b|\\[\\s*["']${name}["']\\s*\\]|\\$\\{?${name}\\b)`).test(text);
}

// --- the docs ---

const docFiles = [
  "README.md",
  ...fs
    .readdirSync(path.join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
].sort();
const docs = docFiles.map((file) => ({ file, text: fs.readFileSync(path.join(root, file), "utf8") }));

/** The text without fenced code blocks (links there are examples, not links). */
const withoutFences = (text: string) => text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, "");
/** ... and without inline code. */
const prose = (text: string) => withoutFences(text).replace(/`[^`\n]*`/g, "");

// --- REST ---

type Method = Route["method"];
interface Operation {
  method: Method;
  path: string;
  role?: string;
  summary?: string;
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}
const operations: Operation[] = Object.entries(
  openApi().paths as Record<string, Record<string, Omit<Operation, "method" | "path">>>,
).flatMap(([p, ops]) =>
  Object.entries(ops).map(([m, op]) => ({
    ...op,
    method: m.toUpperCase() as Method,
    path: p,
    role: (op as Record<string, unknown>)["x-rein-role"] as string | undefined,
  })),
);

/** A concrete path for a path template: each {name}, :name or <name> becomes a sample value. */
const sample = (template: string) => template.replace(/\{[^}/]+\}|:[A-Za-z_]\w*|<[^>/]+>/g, "x1");

/** The route the router picks for a request: the first with this method whose pattern matches. */
const dispatch = (method: string, p: string) => ALL_ROUTES.find((r) => r.method === method && r.pattern.test(p));

describe("the generated docs", () => {
  it("are current", () => {
    for (const d of generatedDocs(root)) {
      expect(d.current === d.wanted, `${d.file} is stale: ${RUN_DOCS}`).toBe(true);
    }
  });
});

describe("environment variables", () => {
  it("the scan finds what it looks for", () => {
    expect(sources.some((s) => s.file === "server/config/index.ts")).toBe(true);
    expect(sources.some((s) => s.file.endsWith(".test.ts"))).toBe(false);
    expect([...variablesIn(`process.env.REIN_X; env.PORT; env["HOST"]; const y = "BENCH_Y"; process.env.PATH; "REIN_"`)].sort()).toEqual([
      "BENCH_Y",
      "HOST",
      "PORT",
      "REIN_X",
    ]);
    expect(reads(`const e = parsed.data; e.PORT`, "PORT")).toBe(true);
    expect(reads(`exec 3<"$REIN_BWRAP_ARGS"`, "REIN_BWRAP_ARGS")).toBe(true);
    expect(reads(`// PORT is the port`, "PORT")).toBe(false);
  });

  it("every variable the sources read is in the registry", () => {
    const where = new Map<string, string[]>();
    for (const s of sources) for (const name of variablesIn(s.text)) where.set(name, [...(where.get(name) ?? []), s.file]);
    const missing = [...where].filter(([name]) => !(name in ENV)).map(([name, files]) => `${name} (in ${files.join(", ")})`);
    expect(missing, `Add each to server/config/env.ts with its check, description, default and group, then ${RUN_DOCS}`).toEqual([]);
  });

  it("every variable of the registry is still read somewhere", () => {
    const unread = Object.keys(ENV).filter((name) => !sources.some((s) => !REGISTRY_FILES.has(s.file) && reads(s.text, name)));
    expect(unread, `Nothing reads these any more: remove them from server/config/env.ts, then ${RUN_DOCS}`).toEqual([]);
  });
});

describe("the REST API", () => {
  it("the router's table and the OpenAPI description are not empty", () => {
    expect(ALL_ROUTES.length).toBeGreaterThan(20);
    expect(operations.length).toBe(ALL_ROUTES.length + 1);
    expect(dispatch("DELETE", sample("/api/v1/models/{provider}/{modelId}"))?.minRole).toBe("admin");
  });

  it("every route declares a response schema, a summary, and is reached by its own path", () => {
    const problems: string[] = [];
    for (const r of ALL_ROUTES) {
      const where = `${r.method} ${r.path}`;
      const response: unknown = r.spec.response;
      if (!(response instanceof z.ZodType) && !(typeof response === "object" && response && "file" in response))
        problems.push(`${where} has no response schema`);
      if (!r.spec.summary.trim()) problems.push(`${where} has no summary`);
      // A route listed after one whose pattern also matches its path is never reached.
      if (dispatch(r.method, sample(r.path)) !== r) problems.push(`${where} is shadowed by an earlier route: move it up`);
    }
    expect(problems, "Fix the route's defineRoute declaration in server/channels/rest").toEqual([]);
  });

  it("every operation has its route's least role, a request schema where it takes a body, and a response schema", () => {
    const problems: string[] = [];
    for (const o of operations) {
      const where = `${o.method} ${o.path}`;
      if (!o.summary) problems.push(`${where} has no summary`);
      const success = Object.entries(o.responses ?? {}).find(([status]) => status.startsWith("2"));
      const content = success?.[1].content ?? {};
      if (!Object.values(content).some((c) => c.schema)) problems.push(`${where} has no response schema`);
      if (o.path === OPENAPI_PATH) {
        if (o.method !== "GET" || o.role !== "none") problems.push(`${where}: the description is GET, with x-rein-role "none"`);
        continue;
      }
      const route = ALL_ROUTES.find((r) => r.method === o.method && r.path === o.path);
      if (!route) problems.push(`${where} has no route`);
      else {
        if (route.minRole !== o.role) problems.push(`${where} says x-rein-role ${o.role}; the route needs ${route.minRole}`);
        if (route.spec.body && !o.requestBody?.content?.["application/json"]?.schema) problems.push(`${where} has no request schema`);
      }
    }
    expect(problems, "The document is generated from the routes: fix server/channels/rest/document.ts").toEqual([]);
  });

  it("the description is valid OpenAPI 3.1", async () => {
    const validator = new Validator();
    const result = await validator.validate(openApi() as unknown as Record<string, unknown>);
    expect(validator.version).toBe("3.1");
    expect(result.errors ?? [], "The generated document breaks the OpenAPI 3.1 schema").toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("the typed client's types are current", async () => {
    const d = await generatedClientTypes(root);
    expect(d.current === d.wanted, `${d.file} is stale: ${RUN_DOCS}`).toBe(true);
  });
});

describe("the CLI", () => {
  const logged: string[] = [];
  afterEach(() => {
    vi.restoreAllMocks();
    logged.length = 0;
  });

  it("has one entry per command line, and a command with sub-commands has no plain entry", () => {
    const lines = COMMANDS.map((c) => [c.command, c.sub].filter(Boolean).join(" "));
    expect(new Set(lines).size, "two entries share a command line").toBe(lines.length);
    for (const c of COMMANDS) {
      const family = COMMANDS.filter((x) => x.command === c.command);
      expect(family.every((x) => x.sub) || family.length === 1, `${c.command}: either sub-commands or one plain entry`).toBe(true);
    }
  });

  it("dispatches every command of the table to its entry", async () => {
    vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void logged.push(args.join(" ")));
    for (const c of COMMANDS) {
      const words = [c.command, c.sub].filter((w): w is string => !!w);
      expect(findCommand(words).entry, `${words.join(" ")} does not reach its entry`).toBe(c);
      logged.length = 0;
      await main([...words, "--help"]);
      expect(logged.join("\n"), `${words.join(" ")} --help`).toBe(helpText(c));
    }
  });

  it("npm run rein -- --help lists every command", () => {
    const r = spawnSync(path.join(root, "node_modules/.bin/tsx"), ["scripts/cli.ts", "--help"], { cwd: root, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    for (const c of COMMANDS) expect(r.stdout, `--help leaves out ${commandLine(c)}`).toContain(commandLine(c));
  });
});

describe("what README.md and docs/*.md mention", () => {
  it("reads every page", () => {
    expect(docFiles).toContain("README.md");
    expect(docFiles).toContain("docs/configuration.md");
  });

  it("every REIN_* and BENCH_* name exists", () => {
    const unknown = docs.flatMap((d) =>
      [...new Set(d.text.match(/\b(?:REIN|BENCH)_[A-Z0-9_]*[A-Z0-9]\b/g) ?? [])].filter((n) => !(n in ENV)).map((n) => `${d.file}: ${n}`),
    );
    expect(unknown, "These variables do not exist (server/config/env.ts): fix the page").toEqual([]);
  });

  it("every npm run rein -- command exists", () => {
    const unknown: string[] = [];
    for (const d of docs) {
      for (const m of d.text.matchAll(/npm run (?:-s )?rein -- ([^\n`|]*)/g)) {
        const words: string[] = [];
        for (const word of m[1].trim().split(/\s+/)) {
          const w = word.replace(/[.,;:)]+$/, ""); // the end of a sentence
          if (!/^[a-z][a-z-]*$/.test(w) || words.length === 3) break; // a sub-command may be two words (eval dataset show)
          words.push(w);
        }
        if (words.length === 0) continue; // --help, <command>
        try {
          const { entry } = findCommand(words);
          if (entry.sub && entry.sub !== words.slice(1, 1 + entry.sub.split(" ").length).join(" "))
            unknown.push(`${d.file}: npm run rein -- ${words.join(" ")}`);
        } catch {
          unknown.push(`${d.file}: npm run rein -- ${words.join(" ")}`);
        }
      }
    }
    expect(unknown, "These CLI commands do not exist (scripts/cli-commands.ts): fix the page").toEqual([]);
  });

  it("every /api/v1 path exists", () => {
    const unknown: string[] = [];
    for (const d of docs) {
      for (const m of d.text.matchAll(/\/api\/v1(?:\/[A-Za-z0-9_.{}:<>-]+)*/g)) {
        const p = m[0].replace(/\.+$/, "");
        if (p === "/api/v1" || p === OPENAPI_PATH) continue;
        const concrete = sample(p);
        if (!ALL_ROUTES.some((r) => r.pattern.test(concrete))) unknown.push(`${d.file}: ${p}`);
      }
    }
    expect(unknown, "These REST paths do not exist (server/channels/rest): fix the page").toEqual([]);
  });

  it("every relative link points to a file, and every #anchor to a heading", () => {
    const broken: string[] = [];
    for (const d of docs) {
      const text = prose(d.text);
      const targets = [
        ...[...text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]),
        ...[...text.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1]),
      ];
      for (const target of targets) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
        const [file, anchor] = target.split("#");
        const resolved = file ? path.resolve(path.dirname(path.join(root, d.file)), decodeURI(file)) : path.join(root, d.file);
        if (!fs.existsSync(resolved)) {
          broken.push(`${d.file}: ${target} (no such file)`);
          continue;
        }
        if (anchor && resolved.endsWith(".md") && !anchorsOf(fs.readFileSync(resolved, "utf8")).has(anchor)) {
          broken.push(`${d.file}: ${target} (no heading with this anchor)`);
        }
      }
    }
    expect(broken, "Fix these links").toEqual([]);
  });
});

/** The anchors GitHub gives a Markdown file's headings. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const m of withoutFences(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n ? `${base}-${n}` : base);
  }
  return anchors;
}

/** GitHub's heading slug: the text without markup, lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .replace(/[`*]/g, "");
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, "")
    .replace(/ /g, "-");
}

// --- pointers from the code's comments to the docs ---

/** The folders (and files) whose comments may point at the docs, and the folders skipped inside them. */
const COMMENTED = ["app", "components", "lib", "server", "scripts", "test", "e2e", "server.ts"];
const NOT_COMMENTED = new Set(["node_modules", "generated", "generated-pg"]);

function codeFiles(entry: string): string[] {
  const full = path.join(root, entry);
  if (!fs.existsSync(full)) return [];
  if (fs.statSync(full).isFile()) return /\.(ts|tsx|mjs)$/.test(entry) ? [full] : [];
  return fs
    .readdirSync(full, { withFileTypes: true })
    .flatMap((e) => (NOT_COMMENTED.has(e.name) ? [] : codeFiles(path.join(entry, e.name))));
}

/** Code up to the next character the comment lexer acts on; white space. */
const CODE_RUN = /[^/'"`{}\s]+/y;
const SPACE_RUN = /\s+/y;
/** Words after which a `/` starts a regular expression, not a division. */
const BEFORE_REGEX = new Set([
  "return",
  "typeof",
  "case",
  "do",
  "else",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "instanceof",
  "yield",
  "await",
]);

/**
 * Each comment of a source file, as text without its markers (`//`, `/*`, a
 * JSDoc line's `*`), lines joined by spaces; consecutive line comments are one
 * comment. A small lexer rather than the TypeScript parser, which takes seconds
 * over the whole tree: it skips strings, template literals and regular
 * expressions; a quote in JSX text ends at its line.
 */
function commentsOf(text: string): string[] {
  const found: string[] = [];
  let lineCommentEnd = -1; // where the last line comment ended, to join the next one to it
  const templates: number[] = []; // for each open `${`, the brace depth it opened at
  let depth = 0;
  let prev = ""; // the last significant character of code
  let i = 0;
  const clean = (raw: string) =>
    raw
      .split("\n")
      .map((l) => l.replace(/^\s*(?:\*(?!\/))?\s?/, ""))
      .join(" ");
  /** From inside a template literal to just after its closing backtick, or after a `${` (then code follows). */
  const template = (from: number) => {
    let j = from;
    while (j < text.length && text[j] !== "`") {
      if (text[j] === "\\") j += 2;
      else if (text[j] === "$" && text[j + 1] === "{") {
        templates.push(depth++);
        prev = "{";
        return j + 2;
      } else j++;
    }
    prev = "`";
    return j + 1;
  };
  while (i < text.length) {
    const c = text[i];
    if (c === "/" && text[i + 1] === "/") {
      const eol = text.indexOf("\n", i);
      const end = eol < 0 ? text.length : eol;
      const body = clean(text.slice(i + 2, end));
      if (lineCommentEnd >= 0 && /^\s*\n\s*$/.test(text.slice(lineCommentEnd, i))) found[found.length - 1] += ` ${body}`;
      else found.push(body);
      lineCommentEnd = end;
      i = end;
    } else if (c === "/" && text[i + 1] === "*") {
      const close = text.indexOf("*/", i + 2);
      const end = close < 0 ? text.length : close;
      found.push(clean(text.slice(i + 2, end).replace(/^\*+/, "")));
      i = end + 2;
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== c && text[j] !== "\n") j += text[j] === "\\" ? 2 : 1;
      prev = c;
      i = j + 1;
    } else if (c === "`") {
      i = template(i + 1);
    } else if (c === "}" && templates.length && templates[templates.length - 1] === depth - 1) {
      depth = templates.pop()!;
      i = template(i + 1);
    } else if (
      c === "/" &&
      (prev === "" ||
        "(,=:[!&|?{};+-*%<>~^".includes(prev) ||
        BEFORE_REGEX.has(/[\w$]+$/.exec(text.slice(Math.max(0, i - 12), i).trimEnd())?.[0] ?? ""))
    ) {
      let j = i + 1;
      let inClass = false;
      while (j < text.length && text[j] !== "\n" && (inClass || text[j] !== "/")) {
        if (text[j] === "\\") j++;
        else if (text[j] === "[") inClass = true;
        else if (text[j] === "]") inClass = false;
        j++;
      }
      prev = "/";
      i = j + 1;
    } else if (c === "{" || c === "}") {
      depth += c === "{" ? 1 : -1;
      prev = c;
      i++;
    } else {
      // A run of code with nothing the lexer acts on, or of white space, in one step.
      const run = c.trim() ? CODE_RUN : SPACE_RUN;
      run.lastIndex = i;
      if (!run.test(text)) {
        prev = c; // a division sign
        i++;
      } else {
        if (run === CODE_RUN) prev = text[run.lastIndex - 1];
        i = run.lastIndex;
      }
    }
  }
  return found;
}

/** A comment that cites the product specification's numbered sections, which the repository does not hold. */
const SPEC_CITATION = /\bSPEC\s+(?:sections?\s+|§\s*)?\d|\bSPEC\s*§/;
/** A pointer at one of Rein's docs pages (their names are lower case; another project's docs/API.md is not one), with its anchor if it names one. */
const DOCS_POINTER = /\bdocs\/((?:[a-z0-9-]+|README)\.md)(?:#([\w-]+))?/g;

/** What is wrong with the comments of one source file: citations of SPEC, and pointers at pages or headings that do not exist. */
function commentProblems(file: string, text: string, pages: Map<string, Set<string>>): string[] {
  const problems: string[] = [];
  for (const comment of commentsOf(text)) {
    if (SPEC_CITATION.test(comment)) problems.push(`${file}: cites SPEC: ${comment.trim().slice(0, 100)}`);
    for (const [pointer, page, anchor] of comment.matchAll(DOCS_POINTER)) {
      const anchors = pages.get(page);
      if (!anchors) problems.push(`${file}: ${pointer}: no such page`);
      else if (anchor && !anchors.has(anchor)) problems.push(`${file}: ${pointer}: no heading with this anchor`);
    }
  }
  return problems;
}

describe("pointers from comments to docs/", () => {
  const pages = new Map(docs.filter((d) => d.file.startsWith("docs/")).map((d) => [d.file.slice("docs/".length), anchorsOf(d.text)]));

  it("the scan finds what it looks for", () => {
    const sample = [
      `// Replay safety: docs/runs.md#replay-safety and docs/runs.md; a package's own docs/API.md is not ours.`,
      `const policy = "# a YAML comment (SPEC section 5)"; // docs/runs.md#no-such-heading`,
      `/**`,
      ` * Resume links (SPEC`,
      ` * section 4), docs/nope.md`,
      ` */`,
      `export const url = "https://example.com/a//b"; /* docs/security.md#the-attack-suite */`,
      `const re = /\\/\\/ docs\\/nope.md/;`,
      'const t = `${a ? `//${b}` : "x"} // docs/nope.md`; const half = total / 2; // docs/security.md#no-such-heading',
      `export const Page = () => <p>it's docs/nope.md, not a comment</p>;`,
    ].join("\n");
    expect(commentProblems("x.tsx", sample, pages)).toEqual([
      "x.tsx: docs/runs.md#no-such-heading: no heading with this anchor",
      "x.tsx: cites SPEC: Resume links (SPEC section 4), docs/nope.md",
      "x.tsx: docs/nope.md: no such page",
      "x.tsx: docs/security.md#no-such-heading: no heading with this anchor",
    ]);
  });

  it("no comment cites SPEC, and every docs/ pointer names a page and heading that exist", () => {
    const files = COMMENTED.flatMap(codeFiles);
    expect(files.length).toBeGreaterThan(500);
    const problems = files.flatMap((f) => {
      const text = fs.readFileSync(f, "utf8");
      return /SPEC|docs\//.test(text) ? commentProblems(rel(f), text, pages) : [];
    });
    expect(
      problems,
      "Point at the docs page that explains the design (docs/x.md#heading-anchor), and fix pointers whose page or heading moved",
    ).toEqual([]);
  });
});

describe("the attack suite's table in docs/security.md", () => {
  it("lists every file of test/attack/", () => {
    const table = fs.readFileSync(path.join(root, "docs", "security.md"), "utf8");
    const files = fs.readdirSync(path.join(root, "test", "attack")).filter((f) => f.endsWith(".test.ts"));
    expect(files.length).toBeGreaterThan(10);
    expect(files.filter((f) => !table.includes(`\`${f}\``))).toEqual([]);
  });
});

describe("the anchor check", () => {
  it("makes GitHub's anchors", () => {
    expect([
      ...anchorsOf(
        "# Rein\n## A short tour\n## `REIN_URL` and *you*\n## Runs → the timeline\n## Runs → the timeline\n```\n# not a heading\n```",
      ),
    ]).toEqual(["rein", "a-short-tour", "rein_url-and-you", "runs--the-timeline", "runs--the-timeline-1"]);
  });
});
