// Every environment variable Rein or its scripts read, in one table: its check,
// what it does, its default and who sets it. The server checks the ones it
// reads at start (loadConfig); docs/configuration.md is generated from this
// table (npm run docs), and test/docs.test.ts fails when a variable is read
// somewhere but missing here, or listed here but read nowhere.
import { z } from "zod";
import { desktopPoolSizeFromEnv, ladderFromEnv, parseFailpoints, parseLinkKeys, parseSecretKey, rpsFromEnv } from "./parsers";

/**
 * server: a person sets these to run Rein; cli: for `npm run rein`;
 * tests: for the tests and benchmarks; internal: Rein sets them for its own
 * child processes, never a person.
 */
export type EnvGroup = "server" | "cli" | "tests" | "internal";

export interface EnvVariable<S extends z.ZodType = z.ZodType> {
  group: EnvGroup;
  /** What it does, in a sentence for people. */
  description: string;
  /** What applies when it is unset, as a person reads it. */
  default: string;
  /** Checks a set value (an empty value counts as unset). */
  schema: S;
  /** The server checks it when it starts (loadConfig). Every server variable is. */
  atStart?: boolean;
}

/** A check by one of the parsers: its error becomes the issue's message. */
function checkedBy(parse: (value: string) => unknown) {
  return z.string().superRefine((value, ctx) => {
    try {
      parse(value);
    } catch (err) {
      ctx.addIssue({ code: "custom", message: (err as Error).message });
    }
  });
}

/** A whole number from min to max; the message names the variable and the range. */
const count = (name: string, min: number, max: number) => {
  const message = `${name} must be a whole number from ${min} to ${max}`;
  return z.coerce.number({ error: message }).int(message).min(min, message).max(max, message);
};

const httpUrl = (name: string, example: string) =>
  z.string().superRefine((value, ctx) => {
    if (!URL.canParse(value)) ctx.addIssue({ code: "custom", message: `${name} must be a URL such as ${example}` });
    else if (!/^https?:\/\//i.test(value)) ctx.addIssue({ code: "custom", message: `${name} must start with http:// or https://` });
  });

const benchCount = (description: string, defaults: string): EnvVariable => ({
  group: "tests",
  description,
  default: defaults,
  schema: z.coerce.number().int().positive().optional(),
});

const internal = (description: string): EnvVariable => ({
  group: "internal",
  description,
  default: "set by Rein",
  schema: z.string().optional(),
});

export const ENV = {
  // --- server: a person sets these ---
  PORT: {
    group: "server",
    description: "The port the server listens on; pages, the API and the sockets share it.",
    default: "3000",
    schema: count("PORT", 1, 65535).default(3000),
  },
  HOST: {
    group: "server",
    description: "The address the server listens on; 127.0.0.1 keeps it to this machine.",
    default: "0.0.0.0",
    schema: z.string().min(1).default("0.0.0.0"),
  },
  REIN_DATA_DIR: {
    group: "server",
    description: "The data directory: the database, run workspaces, desktops and key files. One server per data directory.",
    default: "./data",
    schema: z.string().min(1).default("./data"),
  },
  REIN_PROGRAMS_DIR: {
    group: "server",
    description: "Where the programs of hosted agents (Claude Code, Qwen Code) are installed, one folder per package and version.",
    default: ".rein/programs",
    schema: z.string().min(1).optional(),
  },
  DATABASE_URL: {
    group: "server",
    description:
      "The database: file: followed by the path of an SQLite file (the embedded default), or a postgresql:// URL (needed for several machines; ?schema= picks a schema). Apply the migrations with npm run db:migrate.",
    default: "file:<REIN_DATA_DIR>/rein.db",
    schema: z
      .string()
      .refine(
        (u) => u.startsWith("file:") || /^postgres(ql)?:\/\/[^/]/.test(u),
        "DATABASE_URL must be file:<path> (SQLite) or postgresql://user@host/database (PostgreSQL)",
      )
      .optional(),
  },
  REIN_ROLE: {
    group: "server",
    description:
      "What this process does. all: everything in one process (the default). With several machines (REDIS_URL set): web serves the pages, the API and the sockets and hands runs to the queue; worker executes runs (npm run worker).",
    default: "all",
    schema: z.enum(["all", "web", "worker"], { message: 'REIN_ROLE must be "all", "web" or "worker"' }).default("all"),
  },
  REDIS_URL: {
    group: "server",
    description:
      "Several machines: the Redis server (redis://host:6379) of the run queue, the control messages and the live streams between web and worker processes. Needs a postgresql:// DATABASE_URL and REIN_ROLE web or worker; run Redis with maxmemory-policy noeviction.",
    default: "none (one process)",
    schema: z
      .string()
      .refine((u) => /^rediss?:\/\/[^/]/.test(u), "REDIS_URL must be redis://host:port (or rediss:// with TLS)")
      .optional(),
  },
  REIN_REDIS_PREFIX: {
    group: "server",
    description: "Several machines: the prefix of Rein's Redis keys and channels, so two deployments can share one Redis server.",
    default: "rein",
    schema: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,40}$/, "REIN_REDIS_PREFIX must be 1 to 40 letters, digits, - or _")
      .default("rein"),
  },
  REIN_INTERNAL_URL: {
    group: "server",
    description:
      "Several machines: where web processes reach this worker (http://worker-1:3000), for the Desktop tab of the runs it executes. Keep this port on the private network: only requests signed with the deployment's NEXTAUTH_SECRET get through.",
    default: "http://<HOST, or this machine's name when HOST is 0.0.0.0>:<PORT>",
    schema: httpUrl("REIN_INTERNAL_URL", "http://worker-1:3000").optional(),
  },
  REIN_LEASE_TTL_MS: {
    group: "server",
    description:
      "Several machines: how long a worker's hold on a run lasts without renewal (renewed every 2 s). A frozen or cut-off worker loses its runs after this; a dead one at once.",
    default: "10000",
    schema: count("REIN_LEASE_TTL_MS", 3_000, 600_000).default(10_000),
  },
  REIN_ADMIN_EMAIL: {
    group: "server",
    description:
      "An admin account to create at start if no account has this email yet (the password from REIN_ADMIN_PASSWORD, else a generated one printed once).",
    default: "none (an admin@localhost account is created when there is no admin)",
    schema: z.email("REIN_ADMIN_EMAIL must be an email address").optional(),
  },
  REIN_ADMIN_PASSWORD: {
    group: "server",
    description: "The password of the REIN_ADMIN_EMAIL account when it is created; at least 8 characters, and only with REIN_ADMIN_EMAIL.",
    default: "none (generated and printed once)",
    schema: z.string().min(8, "REIN_ADMIN_PASSWORD must have at least 8 characters").optional(),
  },
  REIN_PUBLIC_URL: {
    group: "server",
    description: "The address people open Rein at: resume links point to it, and changes made from Rein's pages are accepted from it.",
    default: "http://localhost:<PORT>",
    schema: httpUrl("REIN_PUBLIC_URL", "http://localhost:3000").optional(),
  },
  REIN_SLACK_API_URL: {
    group: "server",
    description: "The Slack Web API's base address; set it only to send Slack's calls through a proxy or, in tests, to a local fake.",
    default: "https://slack.com/api/",
    schema: httpUrl("REIN_SLACK_API_URL", "https://slack.com/api/").optional(),
  },
  NEXTAUTH_SECRET: {
    group: "server",
    description: "The key that signs login sessions; at least 32 characters.",
    default: "generated into auth-secret.key in the data directory",
    schema: z.string().min(32, "NEXTAUTH_SECRET must have at least 32 characters").optional(),
  },
  NEXTAUTH_URL: {
    group: "server",
    description: "The address the login pages build their links from.",
    default: "REIN_PUBLIC_URL",
    schema: httpUrl("NEXTAUTH_URL", "http://localhost:3000").optional(),
  },
  NODE_ENV: {
    group: "server",
    description:
      "Set to production to serve the built pages (npm start and npm run up do); otherwise Next.js compiles pages on demand, for development.",
    default: "none (development)",
    schema: z.string().optional(),
  },
  REIN_UI: {
    group: "server",
    description: "Set to off to serve the API and the sockets without the web pages.",
    default: "on",
    schema: z.enum(["on", "off"], { message: 'REIN_UI must be "on" or "off"' }).default("on"),
  },
  REIN_WORKERS: {
    group: "server",
    description: "How many runs the server executes at once.",
    default: "4",
    schema: count("REIN_WORKERS", 1, 64).default(4),
  },
  REIN_DISK_RESERVE_MB: {
    group: "server",
    description:
      "Free space, in MB, the data directory must keep for a run to take its next step; below it runs pause with the reason Disk full and go on when space is freed. 0: runs pause only when a write fails.",
    default: "64",
    schema: count("REIN_DISK_RESERVE_MB", 0, 1_000_000).default(64),
  },
  REIN_SCRIPTED_DELAY_MS: {
    group: "server",
    description: "The pause, in milliseconds, between the streamed words of the scripted demo model.",
    default: "40",
    schema: count("REIN_SCRIPTED_DELAY_MS", 0, 10_000).default(40),
  },
  REIN_POD_POOL_SIZE: {
    group: "server",
    description: "Terminal pods (T1) kept warm for new runs, 0 to 32, until an admin saves Settings › Tiers.",
    default: "2",
    schema: count("REIN_POD_POOL_SIZE", 0, 32).default(2),
  },
  REIN_DESKTOP_POOL_SIZE: {
    group: "server",
    description: "Desktops (T2) kept warm for runs that move up to a desktop, 0 to 16, until an admin saves Settings › Tiers.",
    default: "1",
    schema: checkedBy(desktopPoolSizeFromEnv).optional(),
  },
  REIN_MACHINE_GRACE_SEC: {
    group: "server",
    description:
      "How long, in seconds, Rein keeps trying to reconnect to a run's remote machine (T3) whose connection dropped before the run pauses with the reason, 0 to 3600.",
    default: "60",
    schema: count("REIN_MACHINE_GRACE_SEC", 0, 3600).default(60),
  },
  REIN_SANDBOX: {
    group: "server",
    description: "Set to none to run agent shells and file access WITHOUT a sandbox, for development on hosts without bubblewrap.",
    default: "bubblewrap",
    schema: z.enum(["bubblewrap", "none"], { message: 'REIN_SANDBOX must be "bubblewrap" or "none"' }).default("bubblewrap"),
  },
  REIN_HITL_LADDER: {
    group: "server",
    description:
      "How long human requests wait: level 1 approvers, then level 2, then the hard cap at which they expire (durations in s, m, h or d).",
    default: "24h,48h,7d",
    schema: checkedBy(ladderFromEnv).optional(),
  },
  REIN_LINK_KEYS: {
    group: "server",
    description:
      "The keys that sign resume links, as the JSON of link-keys.json, for several machines that verify each other's links; never rotated by Rein.",
    default: "link-keys.json in the data directory, rotated monthly",
    schema: checkedBy((v) => parseLinkKeys(v, "REIN_LINK_KEYS")).optional(),
  },
  REIN_SECRET_KEY: {
    group: "server",
    description:
      "The 32-byte key (base64 or hex) that seals secrets and provider keys in the database; several machines sharing a database need the same one.",
    default: "secret.key in the data directory, generated on first use",
    schema: checkedBy((v) => parseSecretKey(v, "REIN_SECRET_KEY")).optional(),
  },
  REIN_OTLP_ENDPOINT: {
    group: "server",
    description: "An OTLP/HTTP traces endpoint to export spans to; an endpoint saved in Settings › Telemetry takes its place.",
    default: "none (no export)",
    schema: httpUrl("REIN_OTLP_ENDPOINT", "http://collector:4318/v1/traces").optional(),
  },
  REIN_PROVIDER_RPS: {
    group: "server",
    description: "Requests per second allowed per model provider, e.g. openai=5,anthropic=2.",
    default: "none (no limit)",
    schema: checkedBy(rpsFromEnv).optional(),
  },

  // --- cli: for npm run rein ---
  REIN_URL: {
    group: "cli",
    description: "The Rein server the CLI talks to (--url overrides it).",
    default: "http://localhost:3000",
    schema: httpUrl("REIN_URL", "http://localhost:3000").optional(),
  },
  REIN_TOKEN: {
    group: "cli",
    description: "The API token the CLI sends (--token overrides it); create one with npm run rein -- token create.",
    default: "none (API commands refuse to run)",
    schema: z.string().optional(),
  },

  REIN_DEBUG: {
    group: "cli",
    description: "1: after the one-line message of an unexpected error, the CLI also prints where it came from (its stack).",
    default: "off",
    schema: z.enum(["0", "1"]).optional(),
  },

  // --- tests and benchmarks ---
  REIN_FAILPOINTS: {
    group: "tests",
    description: "Crash tests: name:n kills the server at the n-th time it reaches the named point (after-tool-executed).",
    default: "none (off)",
    schema: checkedBy(parseFailpoints).optional(),
    atStart: true,
  },
  REIN_LOGIN_BACKOFF_MS: {
    group: "tests",
    description: "The first wait, in milliseconds, after repeated failed logins (each further failure doubles it); tests make it short.",
    default: "1000",
    schema: count("REIN_LOGIN_BACKOFF_MS", 1, 3_600_000).optional(),
    atStart: true,
  },
  REIN_PG_URL: {
    group: "tests",
    description:
      "The PostgreSQL database that npm run db:schemas diffs against and the tests use: each test file's cases get a schema of their own there (the database is created when missing).",
    default: "postgresql://postgres@127.0.0.1:5432/test",
    schema: z.string().optional(),
  },
  REIN_TEST_DATABASE: {
    group: "tests",
    description:
      "The database the integration tests open with createTestDb: sqlite (a copy of the migrated template) or postgres (a migrated schema of its own on REIN_PG_URL).",
    default: "sqlite",
    schema: z.enum(["sqlite", "postgres"]).optional(),
  },
  REIN_VITEST_RUN_REPORT: {
    group: "tests",
    description:
      "Set by npm test: where the Vitest run reporter (test/reporters/run-report.ts) writes each test file's time and the tests that passed only on a retry, for the summary.",
    default: "(unset: not written)",
    schema: z.string().optional(),
  },
  MCP_CONFORMANCE_SCENARIO: {
    group: "tests",
    description: "Set by the MCP conformance suite for the client it tests (scripts/mcp-conformance-client.ts): the scenario to play.",
    default: "initialize",
    schema: z.string().optional(),
  },
  REIN_E2E_PORT: {
    group: "tests",
    description: "The port of the server the browser tests start, so two checkouts can run them side by side.",
    default: "3100",
    schema: count("REIN_E2E_PORT", 1, 65535).optional(),
  },
  REIN_DOCS_SCREENSHOTS: {
    group: "tests",
    description:
      "A folder: the role journeys of the browser tests save their pictures there, one per journey, named journey- and the journey's name. npm run docs:screenshot sets it to docs/images.",
    default: "none (no pictures are saved)",
    schema: z.string().optional(),
  },
  CHROMIUM_PATH: {
    group: "tests",
    description: "The Chromium binary that the browser tests and scripts drive.",
    default: "/usr/bin/chromium",
    schema: z.string().optional(),
  },
  CI: {
    group: "tests",
    description: "Set by CI services; the browser tests then refuse a test.only left in the code.",
    default: "none",
    schema: z.string().optional(),
  },
  BENCH_N: benchCount(
    "Benchmarks: how many desktops, terminals or tier upgrades to measure.",
    "10 (desktop), 40 (terminal), 5 (tiers), 300 (channels: deliveries timed), 20 (long: snapshots and checkpoints per workspace)",
  ),
  BENCH_ACTIONS: benchCount("bench:desktop: input actions per desktop.", "30"),
  BENCH_STREAM_SEC: benchCount("bench:desktop: seconds of screen streaming to measure.", "5"),
  BENCH_ROUNDS: benchCount(
    "bench:files, bench:patterns, bench:redaction: rounds to measure; bench:terminal: throughput rounds, each off the PTY and to a watcher.",
    "300 (files), 200 (patterns, redaction), 3 (terminal)",
  ),
  BENCH_RUNS: benchCount(
    "Benchmarks: how many runs to measure (bench:evals: items per measurement).",
    "20 (kernel, channels), 30 (hitl, models, evals), 40 (scale), 100000 (telemetry), 20000 (retention: ended runs over a year)",
  ),
  BENCH_TURNS: benchCount("bench:kernel: model turns per run.", "25"),
  BENCH_APPENDS: benchCount("bench:kernel: event appends to time.", "5000"),
  BENCH_POLICY_CALLS: benchCount("bench:hitl: policy evaluations to time.", "20000"),
  BENCH_GATE_CALLS: benchCount("bench:hitl: calls through the human gate to time.", "2000"),
  BENCH_ASK_CALLS: benchCount("bench:hitl: human requests to create.", "300"),
  BENCH_ATTENTION_RUNS: benchCount(
    "bench:hitl: runs of the attention workload, before and after the suggested rules are added (each phase).",
    "200",
  ),
  BENCH_MODEL_CALLS: benchCount("bench:models: model calls to time.", "400"),
  BENCH_RESOLVES: benchCount("bench:models: model routing decisions to time.", "20000"),
  BENCH_SPANS: benchCount("bench:telemetry: spans to write.", "1000000"),
  BENCH_SPAN_DURATIONS: {
    group: "tests",
    description: 'bench:telemetry: "spread" writes spans that last 1 ms to 30 s, as real ones do, rather than 500 ms each.',
    default: "none (every span lasts 500 ms)",
    schema: z.enum(["spread"], { message: 'BENCH_SPAN_DURATIONS must be "spread" or unset' }).optional(),
  },
  BENCH_CALLS: benchCount("bench:improve: tool calls to time, each way.", "300"),
  BENCH_PROGRESS: benchCount("bench:mcp: calls that report progress to time, per client, for the time to first progress.", "200"),
  BENCH_CONNECTS: benchCount("bench:mcp: connects over HTTP to time, per client (stdio connects take BENCH_N).", "50"),
  BENCH_CYCLES: benchCount("bench:improve: hack cycles to deploy for the hot-load figure.", "20"),
  BENCH_MB: benchCount("bench:terminal: megabytes of terminal output per throughput round.", "100"),
  BENCH_ENDPOINTS: benchCount("bench:channels: webhook endpoints every event goes to, for the throughput figure.", "100"),
  BENCH_EVENTS: benchCount(
    "bench:channels: events committed for the throughput figure; bench:retention: events per generated run.",
    "50 (channels), 200 (retention)",
  ),
  BENCH_FOLDERS: benchCount("bench:retention: generated runs that get a workspace and a snapshot folder.", "500"),
  BENCH_KILLS: benchCount("bench:scale: workers to SIGKILL for the takeover figure.", "5"),
  BENCH_KEYS: benchCount("bench:scale: commands typed into a taken-over terminal for the echo figure.", "50"),
  BENCH_MEMORIES: benchCount("bench:memory: memories to seed for the recall figure.", "100000"),
  BENCH_QUERIES: benchCount("bench:memory: recalls to time, each way.", "200"),
  BENCH_MINUTES: benchCount("bench:soak: how long the load lasts, in minutes.", "30"),
  BENCH_AT_ONCE: benchCount("bench:soak: runs kept going at the same time.", "50"),
  BENCH_STEPS: benchCount("bench:soak: steps of each long run (a shell command of about a second each).", "60"),
  BENCH_BACKLOG: benchCount("bench:soak: old runs past every retention at the start (as many again cross one during the soak).", "5000"),
  BENCH_PRUNE_EVERY: benchCount("bench:soak: seconds between the prune passes it starts.", "120"),
  BENCH_LOAD_RUNS: {
    group: "tests",
    description: "bench:load: how many runs to launch at once, one load per count, separated by commas.",
    default: "100,200",
    schema: z
      .string()
      .regex(/^\s*[1-9]\d*\s*(,\s*[1-9]\d*\s*)*$/, "BENCH_LOAD_RUNS is counts of runs separated by commas, e.g. 100,200")
      .optional(),
  },

  BENCH_YEAR_RUNS: benchCount("bench:year: runs over the 12 months; the other sizes scale with it unless set.", "100000"),
  BENCH_YEAR_EVENTS: benchCount("bench:year: run events in all.", "200 per run"),
  BENCH_YEAR_SPANS: benchCount("bench:year: spans in all.", "50 per run"),
  BENCH_YEAR_TEAMS: benchCount("bench:year: teams, each with 4 to 12 members.", "50"),
  BENCH_YEAR_REQUESTS: benchCount("bench:year: human requests (the newest still waiting).", "1 per 50 runs"),
  BENCH_YEAR_AUDIT: benchCount("bench:year: audit entries in all.", "10 per run"),
  BENCH_YEAR_SAMPLES: {
    group: "tests",
    description: "bench:year: samples of each query after the warm-up; 0 only generates (with BENCH_YEAR_KEEP=1, to time later).",
    default: "30",
    schema: z.coerce.number().int().min(0).optional(),
  },
  BENCH_YEAR_BUDGET_MS: benchCount("bench:year: a query slower than this in all is sampled fewer times (at least 5).", "15000"),
  BENCH_YEAR_DB: {
    group: "tests",
    description: "bench:year: the databases to fill and time, separated by commas.",
    default: "sqlite,postgres",
    schema: z
      .string()
      .regex(/^(sqlite|postgres)(,(sqlite|postgres))*$/, "BENCH_YEAR_DB is sqlite, postgres or both, separated by commas")
      .optional(),
  },
  BENCH_YEAR_KEEP: {
    group: "tests",
    description:
      "bench:year: 1 keeps the year's databases; a later run of the same size reuses them (migrated first) instead of generating again.",
    default: "0 (removed at the end)",
    schema: z.enum(["0", "1"]).optional(),
  },
  BENCH_ONLY: {
    group: "tests",
    description: "bench:kernel: run only the path with this label (for a CPU profile of one path).",
    default: "every path",
    schema: z.string().min(1).optional(),
  },
  BENCH_WATCHERS: benchCount("bench:terminal: watchers attached for the second throughput figure.", "3"),
  BENCH_BASELINE: {
    group: "tests",
    description: "bench:terminal: another checkout of Rein whose server runs in the same turns, as the baseline.",
    default: "none",
    schema: z.string().min(1).optional(),
  },
  BENCH_CPU_PROF: {
    group: "tests",
    description: "bench:terminal: a folder where the servers write their CPU profiles.",
    default: "none (no profile)",
    schema: z.string().min(1).optional(),
  },
  BENCH_YEAR_DIR: {
    group: "tests",
    description: "bench:year: the folder of the SQLite databases.",
    default: "rein-bench-year in the system's temporary folder",
    schema: z.string().min(1).optional(),
  },
  BENCH_YEAR_PG: {
    group: "tests",
    description: "bench:year: the PostgreSQL server, without a database; the bench makes and drops its own database rein_bench_year there.",
    default: "postgresql://postgres@127.0.0.1:5432",
    schema: z.string().min(1).optional(),
  },
  BENCH_YEAR_ONLY: {
    group: "tests",
    description: "bench:year: only the queries whose name contains this (e.g. Runs:).",
    default: "every query",
    schema: z.string().min(1).optional(),
  },

  // --- internal: Rein sets these for its own child processes ---
  REIN_FS_ROOT: internal("The workspace root of the sandboxed file service."),
  REIN_BWRAP_ARGS: internal("The file holding a terminal pod's bubblewrap arguments, so no host path shows on its command line."),
  REIN_GATEWAY_SOCKET: internal("Inside a hosted agent's sandbox: the unix socket of Rein's model gateway its relay forwards to."),
  REIN_GATEWAY_PORT: internal("Inside a hosted agent's sandbox: the loopback port its relay to Rein's model gateway listens on."),
  REIN_EGRESS_SOCKET: internal("The unix socket a desktop browser's network namespace reaches Rein's egress proxy through."),
  REIN_CDP_SOCKET: internal("The unix socket Rein reaches a desktop browser's DevTools through."),
  REIN_DEVTOOLS_FILE: internal("The file a desktop browser writes its DevTools port to."),
  REIN_TEST_TEMPLATE_DB: internal("The migrated template database each test copies; set by the test setup for its workers."),
  REIN_CHECK_RESPONSES: internal(
    "1: the REST API checks every answer against its route's response schema and fails the request when it differs (the tests set it).",
  ),
  REIN_TYPES_CHECKED: internal(
    "1: the type check already ran and passed (npm test sets it), so the build does not check the types a second time.",
  ),
  REIN_JS_BUDGET: internal(
    "enforce: a page whose first-load JavaScript is over its budget fails the build (npm test sets it); otherwise the build only says so.",
  ),
  REIN_TEST_SERVER_BUNDLE: internal(
    "The server bundled once by the test setup, which tests start instead of compiling server.ts each time.",
  ),
} satisfies Record<string, EnvVariable>;

export type EnvName = keyof typeof ENV;

/** The table as a list, in the order above. */
export const ENV_VARIABLES: Array<EnvVariable & { name: EnvName }> = Object.entries(ENV).map(([name, v]) => ({
  ...(v as EnvVariable),
  name: name as EnvName,
}));

type CheckedAtStart = {
  [
    K in EnvName as (typeof ENV)[K]["group"] extends "server" ? K : (typeof ENV)[K] extends { atStart: true } ? K : never
  ]: (typeof ENV)[K]["schema"];
};

/** What loadConfig checks: every server variable and those marked atStart. */
export const StartEnvSchema = z.object(
  Object.fromEntries(ENV_VARIABLES.filter((v) => v.group === "server" || v.atStart).map((v) => [v.name, v.schema])) as CheckedAtStart,
);
