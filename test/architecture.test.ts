// Checks over the source tree: INV-1 (provider SDKs only in
// server/models/providers/), folder interfaces (other code imports a server
// folder only through its index.ts), no server code in browser bundles, and
// the PostgreSQL schema derived from the one data model.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { createTestDb } from "./helpers/db";
import { createPgSchema } from "./helpers/pg";
import { describe, expect, it } from "vitest";
import { derivePostgresSchema } from "../scripts/derive-schemas";
import { ONE_AT_A_TIME, OWN_MODULES } from "../vitest.config";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SKIP = new Set(["node_modules", ".next", "dist", "data", "test-results", "playwright-report", ".git", "generated", "generated-pg"]);

function sourceFiles(dir = root): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (SKIP.has(e.name)) return [];
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx|mts)$/.test(e.name) && !e.name.endsWith(".d.ts") ? [full] : [];
  });
}

interface ImportRef {
  spec: string;
  typeOnly: boolean;
}

export function importsOf(code: string): ImportRef[] {
  const refs: ImportRef[] = [];
  const re = /(?:^|[\n;])\s*(import|export)\s+(type\s+)?(?:[^'"]*?\s+from\s+)?["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
  for (const m of code.matchAll(re)) {
    if (m[4]) refs.push({ spec: m[4], typeOnly: false });
    else refs.push({ spec: m[3], typeOnly: !!m[2] });
  }
  return refs;
}

function resolveLocal(from: string, spec: string): string | null {
  if (spec.startsWith("@/")) return path.join(root, spec.slice(2));
  if (spec.startsWith(".")) return path.resolve(path.dirname(from), spec);
  return null;
}

const files = sourceFiles();
const rel = (f: string) => path.relative(root, f).split(path.sep).join("/");

describe("architecture", () => {
  it("finds the source files it checks", () => {
    expect(files.some((f) => rel(f) === "server/kernel/loop.ts")).toBe(true);
    expect(importsOf(`import type { A } from "@/server/x";\nimport b from './y';\nconst c = await import("z");`)).toEqual([
      { spec: "@/server/x", typeOnly: true },
      { spec: "./y", typeOnly: false },
      { spec: "z", typeOnly: false },
    ]);
  });

  it("INV-1: no model provider SDK is imported outside server/models/providers/", () => {
    const sdk =
      /^(ai|@ai-sdk\/.*|openai|@anthropic-ai\/.*|@google\/generative-ai|@google\/genai|@mistralai\/.*|cohere-ai|groq-sdk|ollama)$/;
    const offenders = files
      .filter((f) => !rel(f).startsWith("server/models/providers/"))
      .flatMap((f) =>
        importsOf(fs.readFileSync(f, "utf8"))
          .filter((r) => sdk.test(r.spec))
          .map((r) => `${rel(f)} imports ${r.spec}`),
      );
    expect(offenders).toEqual([]);
  });

  it("code outside a server folder imports it only through its index.ts", () => {
    const offenders: string[] = [];
    for (const f of files) {
      const source = rel(f);
      for (const r of importsOf(fs.readFileSync(f, "utf8"))) {
        const target = resolveLocal(f, r.spec);
        if (!target) continue;
        const t = path.relative(root, target).split(path.sep).join("/");
        const m = t.match(/^server\/([^/]+)(\/.*)?$/);
        if (!m) continue;
        const area = `server/${m[1]}`;
        if (source.startsWith(area + "/")) continue;
        const inner = (m[2] ?? "").replace(/\/index(\.ts)?$/, "");
        if (inner !== "") offenders.push(`${source} imports ${r.spec} (use "@/${area}")`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it("browser code imports nothing from server/ except types", () => {
    const browser = files.filter((f) => /^(app|components)\//.test(rel(f)) || /^lib\/(?!auth-bridge|auth-options)/.test(rel(f)));
    expect(browser.length).toBeGreaterThan(0);
    const offenders = browser.flatMap((f) =>
      importsOf(fs.readFileSync(f, "utf8"))
        .filter(
          (r) =>
            !r.typeOnly &&
            /^server\//.test(
              path
                .relative(root, resolveLocal(f, r.spec) ?? "")
                .split(path.sep)
                .join("/"),
            ),
        )
        .map((r) => `${rel(f)} imports ${r.spec} at runtime`),
    );
    expect(offenders).toEqual([]);
  });

  it("the PostgreSQL schema is derived from the one data model (run npm run db:schemas)", () => {
    const sqlite = fs.readFileSync(path.join(root, "prisma/schema.prisma"), "utf8");
    expect(sqlite).not.toMatch(/@db\.|sqlite_|AUTOINCREMENT/);
    expect(fs.readFileSync(path.join(root, "prisma/postgres/schema.prisma"), "utf8")).toBe(derivePostgresSchema(sqlite));
    const dirs = (d: string) =>
      fs
        .readdirSync(path.join(root, d), { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
        .sort();
    expect(dirs("prisma/postgres/migrations")).toEqual(dirs("prisma/migrations"));
  });
});

// docs/development.md#ui-primitives: pages compose components/ui; they never re-define its pieces.
const UI_PRIMITIVES = [
  "Field",
  "FieldError",
  "Tabs",
  "TabPanel",
  "PageShell",
  "ConfirmAction",
  "ConfirmDialog",
  "ErrorBlock",
  "ErrorState",
  "Dialog",
];
const definesPrimitive = new RegExp(`(?:function|const|class)\\s+(${UI_PRIMITIVES.join("|")})\\b(?!\\w)`);
const handRolled = [
  { what: "a tab list (use Tabs)", re: /role=["{]"?(tablist|tab|tabpanel)\b/ },
  { what: "an error block (use ErrorBlock)", re: /["`]alert alert-error\b/ },
  { what: "a field error (use FieldError)", re: /<(span|div|p)\s+className="field-error"/ },
];
const LIMITS = [
  "DEFAULT_CALL_CAP",
  "MAX_STEPS",
  "MAX_BUDGET_USD",
  "MAX_GOAL_CHARS",
  "MAX_MESSAGE_CHARS",
  "MAX_RUN_TAGS",
  "MAX_TAG_CHARS",
  "MAX_EPOCHS",
  "MAX_CONCURRENCY",
  "MAX_JSONL_BYTES",
  "MAX_TEXT_BYTES",
];
const declaresLimit = new RegExp(`\\bconst\\s+(${LIMITS.join("|")})\\s*=`);

describe("UI primitives and shared limits", () => {
  const ui = files.filter((f) => /^(app|components)\//.test(rel(f)) && !rel(f).startsWith("components/ui/"));

  it("its detectors catch what they are meant to", () => {
    expect(definesPrimitive.test("function FieldError({ id }) {")).toBe(true);
    expect(definesPrimitive.test("export const Tabs = () => null;")).toBe(true);
    expect(definesPrimitive.test("function FieldErrors() {}")).toBe(false);
    expect(handRolled.map((h) => h.re.test('<div className="x" role="tablist">'))).toEqual([true, false, false]);
    expect(handRolled.map((h) => h.re.test('<div className="alert alert-error" role="alert">'))).toEqual([false, true, false]);
    expect(handRolled.map((h) => h.re.test('<span className="field-error" id="x">'))).toEqual([false, false, true]);
    expect(declaresLimit.test("const MAX_STEPS = 500;")).toBe(true);
  });

  it("no page or component outside components/ui defines a primitive of its own", () => {
    const offenders = ui.flatMap((f) => {
      const m = fs.readFileSync(f, "utf8").match(definesPrimitive);
      return m ? [`${rel(f)} defines ${m[1]}`] : [];
    });
    expect(offenders).toEqual([]);
  });

  it("no page or component hand-rolls tabs, error blocks or field errors", () => {
    const offenders = ui.flatMap((f) => {
      const code = fs.readFileSync(f, "utf8");
      return handRolled.filter((h) => h.re.test(code)).map((h) => `${rel(f)} hand-rolls ${h.what}`);
    });
    expect(offenders).toEqual([]);
  });

  it("code outside components/ui imports it only through its index.ts", () => {
    const offenders = files
      .filter((f) => !rel(f).startsWith("components/ui/"))
      .flatMap((f) =>
        importsOf(fs.readFileSync(f, "utf8"))
          .filter((r) =>
            /^components\/ui\/./.test(
              path
                .relative(root, resolveLocal(f, r.spec) ?? "")
                .split(path.sep)
                .join("/"),
            ),
          )
          .map((r) => `${rel(f)} imports ${r.spec} (use "@/components/ui")`),
      );
    expect(offenders).toEqual([]);
  });

  it("browser code takes the server's limits from the browser-safe lib/limits.ts, never re-typing them", () => {
    expect(importsOf(fs.readFileSync(path.join(root, "lib/limits.ts"), "utf8"))).toEqual([]);
    // The server enforces them and may name them; browser code must not re-type them.
    const browser = files.filter((f) => /^(app|components|lib)\//.test(rel(f)) && rel(f) !== "lib/limits.ts" && !/\.test\.tsx?$/.test(f));
    const offenders = browser.flatMap((f) => {
      const m = fs.readFileSync(f, "utf8").match(declaresLimit);
      return m ? [`${rel(f)} declares ${m[1]} (import it from "@/lib/limits")`] : [];
    });
    expect(offenders).toEqual([]);
  });
});

const PG_URL = process.env.REIN_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/test";

describe("PostgreSQL migrations", () => {
  it("apply to a fresh PostgreSQL database and create every model's table", async () => {
    const name = `rein_migrate_check_${process.pid}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    try {
      const url = new URL(PG_URL);
      url.pathname = `/${name}`;
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      try {
        const dir = path.join(root, "prisma/postgres/migrations");
        for (const m of fs
          .readdirSync(dir)
          .filter((d) => fs.statSync(path.join(dir, d)).isDirectory())
          .sort()) {
          await client.query(fs.readFileSync(path.join(dir, m, "migration.sql"), "utf8"));
        }
        // Not "_rein_…": a table a migration left for a backfill to empty and drop (server/db/backfill.ts).
        const { rows } = await client.query(
          `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name NOT LIKE '\\_rein\\_%' ORDER BY table_name`,
        );
        const models = [...fs.readFileSync(path.join(root, "prisma/schema.prisma"), "utf8").matchAll(/^model (\w+) \{/gm)]
          .map((m) => m[1])
          .sort();
        expect(rows.map((r) => r.table_name)).toEqual(models);
      } finally {
        await client.end();
      }
    } finally {
      await admin.query(`DROP DATABASE "${name}"`);
      await admin.end();
    }
  });

  it("create the same columns, with the same NULL rules and defaults present, as the SQLite migrations", async () => {
    const sqlite = await createTestDb();
    const pgSchema = await createPgSchema("columns");
    try {
      type Col = string;
      const fromSqlite = new Set<Col>();
      const tables = await sqlite.db.$queryRawUnsafe<Array<{ name: string }>>(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '_prisma_migrations'`,
      );
      for (const { name } of tables) {
        const cols = await sqlite.db.$queryRawUnsafe<Array<{ name: string; notnull: number | bigint; dflt_value: string | null }>>(
          `PRAGMA table_info("${name}")`,
        );
        for (const c of cols)
          fromSqlite.add(`${name}.${c.name} ${Number(c.notnull) ? "NOT NULL" : "NULL"}${c.dflt_value === null ? "" : " DEFAULT"}`);
      }
      const { rows } = await pgSchema.sql(
        `SELECT table_name, column_name, is_nullable, column_default FROM information_schema.columns WHERE table_schema = $1 AND table_name <> '_prisma_migrations'`,
        [pgSchema.schema],
      );
      // An autoincrement id is a sequence's default on PostgreSQL and the row id on SQLite.
      const hasDefault = (d: string | null) => d !== null && !d.startsWith("nextval(");
      const fromPg = new Set<Col>(
        rows.map(
          (r) =>
            `${r.table_name}.${r.column_name} ${r.is_nullable === "NO" ? "NOT NULL" : "NULL"}${hasDefault(r.column_default) ? " DEFAULT" : ""}`,
        ),
      );
      expect([...fromPg].filter((c) => !fromSqlite.has(c)).sort(), "only on PostgreSQL").toEqual([]);
      expect([...fromSqlite].filter((c) => !fromPg.has(c)).sort(), "only on SQLite").toEqual([]);
    } finally {
      await sqlite.cleanup();
      await pgSchema.drop();
    }
  });
});

// How Vitest runs the files (vitest.config.ts, docs/development.md#run-the-tests): a file that changes
// what later files would see needs modules of its own, and one that starts servers runs alone.
describe("the test files' groups", () => {
  const testFiles = sourceFiles()
    .map((f) => path.relative(root, f))
    .filter(
      (f) =>
        f.endsWith(".test.ts") &&
        !f.startsWith("e2e/") &&
        !f.includes("__fixtures__") &&
        !f.startsWith("test/reporters/fixture/") &&
        f !== "test/architecture.test.ts",
    );
  const inList = (list: string[], file: string) => list.some((glob) => path.matchesGlob(file, glob));
  const CHANGES_WHAT_OTHERS_SEE = /\bvi\.(mock|doMock|stubEnv|stubGlobal)\(|process\.env\.[A-Z_]+\s*=[^=]/;
  const STARTS_SERVERS = /\b(spawnServer|serverWithToken|startCliServer|startTestDesktop)\(/;

  it("finds the test files and tells their kinds apart", () => {
    expect(testFiles.length).toBeGreaterThan(100);
    expect(CHANGES_WHAT_OTHERS_SEE.test('process.env.REIN_X = "1"')).toBe(true);
    expect(CHANGES_WHAT_OTHERS_SEE.test("process.env.REIN_X === undefined")).toBe(false);
    expect(STARTS_SERVERS.test("const s = await serverWithToken();")).toBe(true);
  });

  it("a file that replaces modules or sets environment variables is in OWN_MODULES or ONE_AT_A_TIME", () => {
    const missing = testFiles.filter(
      (f) => CHANGES_WHAT_OTHERS_SEE.test(fs.readFileSync(path.join(root, f), "utf8")) && !inList([...OWN_MODULES, ...ONE_AT_A_TIME], f),
    );
    expect(missing).toEqual([]);
  });

  it("a file that starts servers or desktops as processes is in ONE_AT_A_TIME", () => {
    const missing = testFiles.filter((f) => STARTS_SERVERS.test(fs.readFileSync(path.join(root, f), "utf8")) && !inList(ONE_AT_A_TIME, f));
    expect(missing).toEqual([]);
  });
});
