// A year of Rein's data for npm run bench:year, the same rows on SQLite and on PostgreSQL: teams with
// their members, runs over twelve months (statuses, agents, models, tiers, tags, goals made of words to
// search), each run's event log and spans (a run span, then model calls and tool calls), the rollups
// the Costs page reads (summed from those spans by the sink's rules, so its figures are the spans'),
// human requests (the newest still waiting in the Inbox) and audit entries. Written straight into the
// tables: on SQLite with prepared statements in big transactions and synchronous=OFF, on PostgreSQL in
// batches of thousands of rows passed as arrays (INSERT ... SELECT FROM unnest), two batches in flight.
import pg from "pg";
import { openNativeSqlite, type NativeSqlite } from "@/server/db";
import { spanIdOf, traceIdOf } from "@/server/telemetry";

export interface YearSize {
  runs: number;
  events: number;
  spans: number;
  teams: number;
  requests: number;
  audit: number;
}

export const FULL_YEAR: YearSize = { runs: 100_000, events: 20_000_000, spans: 5_000_000, teams: 50, requests: 2_000, audit: 1_000_000 };

/** The people the benchmark acts as: an admin, and an operator in two of the teams. */
export interface YearPeople {
  adminId: string;
  memberId: string;
  memberTeams: string[];
  /** A run of the member's first team with a full event log and trace (the run page). */
  sampleRunId: string;
}

type ColType = "text" | "int" | "float" | "time";
interface Table {
  name: string;
  cols: Array<[string, ColType]>;
}

const T = (name: string, cols: Array<[string, ColType]>): Table => ({ name, cols });
const TABLES = {
  user: T("User", [
    ["id", "text"],
    ["email", "text"],
    ["name", "text"],
    ["passwordHash", "text"],
    ["role", "text"],
    ["createdAt", "time"],
  ]),
  team: T("Team", [
    ["id", "text"],
    ["name", "text"],
    ["createdAt", "time"],
  ]),
  member: T("TeamMember", [
    ["teamId", "text"],
    ["userId", "text"],
    ["role", "text"],
    ["addedAt", "time"],
  ]),
  run: T("Run", [
    ["id", "text"],
    ["goal", "text"],
    ["agentName", "text"],
    ["agentVersion", "int"],
    ["teamId", "text"],
    ["createdById", "text"],
    ["status", "text"],
    ["model", "text"],
    ["tier", "text"],
    ["maxSteps", "int"],
    ["stepCount", "int"],
    ["inputTokens", "int"],
    ["outputTokens", "int"],
    ["costUsd", "float"],
    ["lastSeq", "int"],
    ["tracedSeq", "int"],
    ["errorCode", "text"],
    ["errorMessage", "text"],
    ["createdAt", "time"],
    ["startedAt", "time"],
    ["endedAt", "time"],
    ["durationMs", "int"],
    ["updatedAt", "time"],
  ]),
  tag: T("RunTag", [
    ["runId", "text"],
    ["tag", "text"],
  ]),
  event: T("RunEvent", [
    ["runId", "text"],
    ["seq", "int"],
    ["type", "text"],
    ["actor", "text"],
    ["payload", "text"],
    ["createdAt", "time"],
  ]),
  span: T("Span", [
    ["spanId", "text"],
    ["traceId", "text"],
    ["parentSpanId", "text"],
    ["runId", "text"],
    ["kind", "text"],
    ["name", "text"],
    ["startTime", "time"],
    ["endTime", "time"],
    ["durationMs", "int"],
    ["status", "text"],
    ["teamId", "text"],
    ["workflowId", "text"],
    ["userId", "text"],
    ["model", "text"],
    ["tool", "text"],
    ["inputTokens", "int"],
    ["outputTokens", "int"],
    ["cachedInputTokens", "int"],
    ["costUsd", "float"],
    ["attributes", "text"],
    ["detail", "text"],
  ]),
  costRollup: T("CostRollup", [
    ["day", "text"],
    ["teamId", "text"],
    ["workflowId", "text"],
    ["model", "text"],
    ["calls", "int"],
    ["inputTokens", "int"],
    ["outputTokens", "int"],
    ["cachedInputTokens", "int"],
    ["costUsd", "float"],
  ]),
  spanRollup: T("SpanRollup", [
    ["day", "text"],
    ["kind", "text"],
    ["name", "text"],
    ["bucket", "int"],
    ["count", "int"],
    ["errors", "int"],
  ]),
  request: T("HumanRequest", [
    ["id", "text"],
    ["runId", "text"],
    ["nodeId", "text"],
    ["checkpointId", "text"],
    ["slot", "text"],
    ["kind", "text"],
    ["state", "text"],
    ["title", "text"],
    ["detail", "text"],
    ["payload", "text"],
    ["requiredRole", "text"],
    ["teamId", "text"],
    ["requestedById", "text"],
    ["level", "int"],
    ["expiresAt", "time"],
    ["hardExpiresAt", "time"],
    ["nextActionAt", "time"],
    ["decision", "text"],
    ["decidedById", "text"],
    ["decidedAt", "time"],
    ["channel", "text"],
    ["createdAt", "time"],
    ["updatedAt", "time"],
  ]),
  audit: T("AuditEntry", [
    ["at", "time"],
    ["kind", "text"],
    ["actorId", "text"],
    ["actorName", "text"],
    ["onBehalfOf", "text"],
    ["channel", "text"],
    ["runId", "text"],
    ["requestId", "text"],
    ["subject", "text"],
    ["fromState", "text"],
    ["toState", "text"],
    ["detail", "text"],
    ["teamId", "text"],
  ]),
};

/** Where the rows go: SQLite or PostgreSQL. */
interface RowWriter {
  add(table: Table, row: unknown[]): Promise<void>;
  finish(): Promise<void>;
}

const sqliteTime = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString().replace("Z", "+00:00"));
const pgTime = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

class SqliteWriter implements RowWriter {
  private readonly statements = new Map<Table, ReturnType<NativeSqlite["prepare"]>>();
  private pending = 0;
  constructor(private readonly db: NativeSqlite) {
    db.pragma("synchronous = OFF");
    db.exec("BEGIN");
  }
  async add(table: Table, row: unknown[]) {
    let st = this.statements.get(table);
    if (!st) {
      const cols = table.cols.map(([c]) => `"${c}"`).join(", ");
      st = this.db.prepare(`INSERT INTO "${table.name}" (${cols}) VALUES (${table.cols.map(() => "?").join(", ")})`);
      this.statements.set(table, st);
    }
    st.run(...(row.map((v, i) => (table.cols[i][1] === "time" ? sqliteTime(v as number | null) : v)) as [{}]));
    if (++this.pending >= 200_000) {
      this.db.exec("COMMIT; BEGIN");
      this.pending = 0;
    }
  }
  async finish() {
    this.db.exec("COMMIT");
    this.db.pragma("synchronous = NORMAL");
  }
}

const PG_TYPES: Record<ColType, string> = { text: "text", int: "integer", float: "double precision", time: "timestamp(3)" };
const PG_BATCH = 5_000;

/** The big tables' secondary indexes are dropped while they load and made again after: far quicker than keeping them up row by row. */
const REINDEXED = ["RunEvent", "Span", "AuditEntry"];

class PgWriter implements RowWriter {
  /** Buffers in the order tables were first written: parents (people, teams, runs) before their rows. */
  private readonly buffers = new Map<Table, unknown[][]>();
  private readonly inflight: Array<Promise<unknown>> = [];
  private indexes: string[] = [];
  constructor(private readonly client: pg.Client) {}
  async begin() {
    const found = await this.client.query<{ indexname: string; indexdef: string }>(
      `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ANY($1) AND indexname NOT LIKE '%_pkey'`,
      [REINDEXED],
    );
    this.indexes = found.rows.map((r) => r.indexdef);
    for (const r of found.rows) await this.client.query(`DROP INDEX "${r.indexname}"`);
  }
  async add(table: Table, row: unknown[]) {
    let rows = this.buffers.get(table);
    if (!rows) this.buffers.set(table, (rows = []));
    rows.push(row);
    if (rows.length >= PG_BATCH) {
      // A row's parents go first (foreign keys).
      for (const t of this.buffers.keys()) {
        if (t === table) break;
        await this.flush(t);
      }
      await this.flush(table);
    }
  }
  private async flush(table: Table) {
    const rows = this.buffers.get(table);
    if (!rows?.length) return;
    this.buffers.set(table, []);
    const columns = table.cols.map(([, type], i) => rows.map((r) => (type === "time" ? pgTime(r[i] as number | null) : r[i])));
    const names = table.cols.map(([c]) => `"${c}"`).join(", ");
    const unnest = table.cols.map(([, type], i) => `$${i + 1}::${PG_TYPES[type]}[]`).join(", ");
    const sql = `INSERT INTO "${table.name}" (${names}) SELECT * FROM unnest(${unnest})`;
    // Two batches in flight: the next is built while the server writes this one.
    this.inflight.push(this.client.query(sql, columns));
    if (this.inflight.length >= 2) await this.inflight.shift();
  }
  async finish() {
    for (const table of this.buffers.keys()) await this.flush(table);
    await Promise.all(this.inflight.splice(0));
    await this.client.query("SET maintenance_work_mem = '512MB'");
    for (const def of this.indexes) await this.client.query(def);
  }
}

/** A small deterministic random source (mulberry32), so both databases get the same rows. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <V>(xs: readonly V[]) => xs[Math.floor(next() * xs.length)],
    /** Skewed toward the front of the list: a few are used far more than the rest. */
    skewed: <V>(xs: readonly V[]) => xs[Math.floor(next() ** 2 * xs.length)],
  };
}

const AGENTS = [
  "demo-coder",
  "code-reviewer",
  "release-notes",
  "triage-bot",
  "dependency-bumper",
  "test-fixer",
  "doc-writer",
  "data-cleaner",
  "incident-summarizer",
  "sql-helper",
  "migration-planner",
  "security-scanner",
  "changelog-bot",
  "support-drafter",
  "refactorer",
  "perf-profiler",
  "i18n-translator",
  "schema-checker",
  "ci-doctor",
  "api-designer",
] as const;
const MODELS = [
  ["openai/gpt-5-mini", 0.25, 2],
  ["openai/gpt-5", 1.25, 10],
  ["anthropic/claude-sonnet-4-5", 3, 15],
  ["anthropic/claude-haiku-4-5", 1, 5],
  ["google/gemini-2.5-flash", 0.3, 2.5],
  ["local/qwen3-coder", 0, 0],
] as const;
const TOOLS = ["shell", "read_file", "write_file", "list_files", "search", "http_get", "git_commit"] as const;
const VERBS = ["Fix", "Add", "Refactor", "Investigate", "Document", "Speed up", "Upgrade", "Remove", "Test", "Review"];
const OBJECTS = ["the flaky login test", "pagination", "the billing export", "a memory leak", "retry logic", "the webhook handler"];
const PLACES = ["payments", "search", "onboarding", "the CLI", "reporting", "notifications", "auth", "the mobile app", "inventory"];
const EXTRAS = ["before Friday's release", "after the outage", "for the audit", "as the customer asked", "", "", ""];
const TAGS = ["nightly", "customer", "hotfix", "experiment", "release", "security", "backlog", "q3", "infra", "docs"];
const DAY = 86_400_000;

/** Run ids sort by creation time, as Rein's (cuid) do. */
const runIdOf = (createdAt: number, i: number) => `cy${createdAt.toString(36).padStart(9, "0")}${i.toString(36).padStart(6, "0")}`;

export async function openPgClient(url: string): Promise<pg.Client> {
  const u = new URL(url);
  const schema = u.searchParams.get("schema") ?? "public";
  u.searchParams.delete("schema");
  const client = new pg.Client({ connectionString: u.toString(), options: `-c search_path=${schema}` });
  await client.connect();
  return client;
}

/**
 * Fills a migrated, empty database with `size`, its runs ending before `now`; returns the people the
 * benchmark acts as. `say` prints progress.
 */
export async function generateYear(url: string, size: YearSize, now: number, say: (line: string) => void): Promise<YearPeople> {
  const postgres = url.startsWith("postgres");
  const native = postgres ? null : openNativeSqlite(url);
  const client = postgres ? await openPgClient(url) : null;
  if (client) await client.query("SET synchronous_commit = off");
  const w: RowWriter = native ? new SqliteWriter(native) : new PgWriter(client!);
  if (w instanceof PgWriter) await w.begin();
  try {
    return await fill(w, size, now, say);
  } finally {
    await w.finish();
    if (client) {
      say("  ANALYZE (as autovacuum would)");
      await client.query(
        `ANALYZE ${Object.values(TABLES)
          .map((t) => `"${t.name}"`)
          .join(", ")}`,
      );
      await client.end();
    }
    native?.close();
  }
}

async function fill(w: RowWriter, size: YearSize, now: number, say: (line: string) => void): Promise<YearPeople> {
  const rnd = random(20270101);
  const start = now - 365 * DAY;
  const hash = "bench-user-cannot-log-in";

  // People: an admin, then 4-12 members per team (a few of them in two teams).
  await w.add(TABLES.user, ["year-admin", "admin@year.bench", "Year Admin", hash, "admin", start]);
  await w.add(TABLES.user, ["year-member", "member@year.bench", "Year Member", hash, "viewer", start]);
  const teams: Array<{ id: string; members: string[] }> = [];
  let users = 0;
  for (let t = 0; t < size.teams; t++) {
    const id = `team-${String(t).padStart(3, "0")}`;
    await w.add(TABLES.team, [id, `Team ${t} ${PLACES[t % PLACES.length]}`, start]);
    const members: string[] = [];
    for (let m = 0, n = 4 + rnd.int(9); m < n; m++) {
      const uid = `user-${String(users++).padStart(5, "0")}`;
      await w.add(TABLES.user, [uid, `${uid}@year.bench`, `Person ${users}`, hash, "viewer", start]);
      await w.add(TABLES.member, [id, uid, rnd.pick(["viewer", "operator", "operator", "approver"]), start]);
      members.push(uid);
    }
    teams.push({ id, members });
  }
  const memberTeams = [teams[0].id, teams[1].id];
  for (const t of memberTeams) {
    await w.add(TABLES.member, [t, "year-member", "operator", start]);
    teams.find((x) => x.id === t)!.members.push("year-member");
  }

  const eventsPerRun = size.events / size.runs;
  const spansPerEvent = size.spans / size.events;
  const requestEvery = Math.max(1, Math.floor(size.runs / Math.max(1, size.requests)));
  const auditPerRun = size.audit / size.runs;
  const costRollup = new Map<string, number[]>();
  const spanRollup = new Map<string, number[]>();
  const bump = (map: Map<string, number[]>, key: unknown[], values: number[]) => {
    const k = JSON.stringify(key);
    const sums = map.get(k);
    if (!sums) map.set(k, values.slice());
    else values.forEach((v, i) => (sums[i] += v));
  };
  const written = { events: 0, spans: 0, requests: 0, audit: 0 };
  let sampleRunId = "";
  let lastRunId = "";
  const started = Date.now();
  const pendingFrom = size.runs - Math.min(60, Math.max(1, Math.floor(size.requests * 0.03))) * requestEvery;

  for (let i = 0; i < size.runs; i++) {
    const createdAt = Math.floor(start + (i / size.runs) * 365 * DAY + rnd.int(60_000));
    const id = runIdOf(createdAt, i);
    // Team sizes differ: a few teams launch most runs (a database of one run gives it to the member's team).
    const team = size.runs === 1 ? teams[0] : teams[Math.floor(rnd.next() ** 1.5 * teams.length)];
    const userId = rnd.pick(team.members);
    const agent = rnd.skewed(AGENTS);
    const [model, inPrice, outPrice] = MODELS[(AGENTS.indexOf(agent) + (rnd.next() < 0.2 ? 1 : 0)) % MODELS.length];
    const tier = rnd.next() < 0.7 ? "T1" : rnd.next() < 0.8 ? "T2" : "T3";
    const goal =
      `${rnd.pick(VERBS)} ${rnd.pick(OBJECTS)} in ${rnd.pick(PLACES)} ${rnd.pick(EXTRAS)}`.trim() + ` (#${1000 + rnd.int(9000)})`;
    const hasRequest = i % requestEvery === 0 && written.requests < size.requests;
    const pending = hasRequest && i >= pendingFrom;
    const recent = size.runs - i;
    const roll = rnd.next();
    const status = pending
      ? "waiting_human"
      : recent <= 3
        ? "running"
        : recent <= 5
          ? "queued"
          : roll < 0.78
            ? "succeeded"
            : roll < 0.92
              ? "failed"
              : "canceled";
    const ended = ["succeeded", "failed", "canceled"].includes(status);
    // Events: a start, then steps of three (model turn, tool call, tool result), then the end.
    const nEvents = Math.max(4, Math.round(eventsPerRun * (0.2 + 1.6 * rnd.next())));
    const steps = Math.floor((nEvents - 3) / 3);
    const startedAt = status === "queued" ? null : createdAt + 200 + rnd.int(3000);
    let at = startedAt ?? createdAt;
    const events: unknown[][] = [];
    const seqAt: number[] = [];
    const push = (type: string, actor: string, payload: object) => {
      at += 50 + rnd.int(4000);
      events.push([id, events.length + 1, type, actor, JSON.stringify(payload), at]);
      seqAt.push(at);
    };
    push("run.created", userId, { goal, agent, agentVersion: 1, model });
    const spans: Array<{
      kind: string;
      name: string;
      start: number;
      end: number;
      tool: string | null;
      status: string;
      inTok: number;
      outTok: number;
      cached: number;
      cost: number;
    }> = [];
    let nSpans = Math.max(2, Math.round(nEvents * spansPerEvent));
    let tokensIn = 0;
    let tokensOut = 0;
    let cost = 0;
    let chats = 0;
    for (let s = 0; s < steps; s++) {
      const tool = rnd.skewed(TOOLS);
      const inTok = 400 + rnd.int(8000);
      const outTok = 40 + rnd.int(1200);
      const cached = Math.floor(inTok * rnd.next() * 0.6);
      const turnStart = at;
      push("model.turn", `agent:${agent}`, {
        step: s + 1,
        model,
        text: s % 4 === 0 ? `Looking at ${rnd.pick(PLACES)} to ${goal.toLowerCase()}.` : "",
        toolCalls: [{ id: `call-${s}`, tool }],
        usage: { inputTokens: inTok, outputTokens: outTok, cachedInputTokens: cached },
      });
      const turnEnd = at;
      push("tool.call", `agent:${agent}`, {
        toolCallId: `call-${s}`,
        tool,
        args: { command: tool === "shell" ? "npm test" : "src/index.ts" },
      });
      const ok = rnd.next() > 0.06;
      push("tool.result", `agent:${agent}`, { toolCallId: `call-${s}`, tool, ok, output: ok ? "done" : "exit code 1", cached: false });
      // Spans follow the steps until the run's share is written: a chat span per turn, a tool span per call.
      if (nSpans > 1) {
        const c = (inTok - cached) * (inPrice / 1e6) + cached * (inPrice / 1e7) + outTok * (outPrice / 1e6);
        spans.push({
          kind: "chat",
          name: `chat ${model}`,
          start: turnStart,
          end: turnEnd,
          tool: null,
          status: "ok",
          inTok,
          outTok,
          cached,
          cost: c,
        });
        tokensIn += inTok;
        tokensOut += outTok;
        cost += c;
        chats++;
        nSpans--;
      }
      if (nSpans > 1) {
        spans.push({
          kind: "execute_tool",
          name: `execute_tool ${tool}`,
          start: turnEnd,
          end: at,
          tool,
          status: ok ? "ok" : "error",
          inTok: 0,
          outTok: 0,
          cached: 0,
          cost: 0,
        });
        nSpans--;
      }
    }
    if (ended) push(status === "succeeded" ? "run.succeeded" : status === "failed" ? "run.failed" : "run.canceled", "system", { status });
    const endedAt = ended ? at : null;
    if (memberTeams.includes(team.id)) lastRunId = id;
    if (!sampleRunId && team.id === memberTeams[0] && status === "succeeded" && i > size.runs / 2 && nEvents > eventsPerRun)
      sampleRunId = id;

    await w.add(TABLES.run, [
      id,
      goal,
      agent,
      1,
      team.id,
      userId,
      status,
      model,
      tier,
      50,
      chats,
      tokensIn,
      tokensOut,
      cost,
      events.length,
      events.length,
      status === "failed" ? "TOOL_FAILED" : null,
      status === "failed" ? "The tests still fail after 3 attempts" : null,
      createdAt,
      startedAt,
      endedAt,
      endedAt !== null && startedAt !== null ? endedAt - startedAt : null,
      at,
    ]);
    if (rnd.next() < 0.25) {
      const first = rnd.int(TAGS.length);
      await w.add(TABLES.tag, [id, TAGS[first]]);
      if (rnd.next() < 0.3) await w.add(TABLES.tag, [id, TAGS[(first + 1 + rnd.int(TAGS.length - 1)) % TAGS.length]]);
    }
    for (const e of events) await w.add(TABLES.event, e);
    written.events += events.length;

    // The run's trace: its run span, then the steps'.
    const traceId = traceIdOf(id);
    const root = spanIdOf(id, "run");
    const runEnd = endedAt ?? at;
    const attrs = (kind: string) =>
      JSON.stringify({ "rein.run_id": id, "rein.team_id": team.id, "rein.workflow_id": agent, "gen_ai.operation.name": kind });
    const spanRows: unknown[][] = [
      [
        root,
        traceId,
        null,
        id,
        "run",
        `run ${agent}`,
        startedAt ?? createdAt,
        endedAt,
        endedAt === null ? null : runEnd - (startedAt ?? createdAt),
        ended ? (status === "failed" ? "error" : "ok") : "unset",
        team.id,
        agent,
        userId,
        null,
        null,
        tokensIn,
        tokensOut,
        0,
        cost,
        attrs("run"),
        null,
      ],
    ];
    spans.forEach((s, k) => {
      const ms = s.end - s.start;
      spanRows.push([
        spanIdOf(id, `${s.kind}:${k}`),
        traceId,
        root,
        id,
        s.kind,
        s.name,
        s.start,
        s.end,
        ms,
        s.status,
        team.id,
        agent,
        userId,
        s.kind === "chat" ? model : null,
        s.tool,
        s.inTok,
        s.outTok,
        s.cached,
        s.cost,
        attrs(s.kind),
        JSON.stringify(
          s.kind === "chat"
            ? { output: "I will run the tests next." }
            : { input: s.tool, output: s.status === "ok" ? "done" : "exit code 1" },
        ),
      ]);
      const day = new Date(s.start).toISOString().slice(0, 10);
      if (s.kind === "chat") bump(costRollup, [day, team.id, agent, model], [1, s.inTok, s.outTok, s.cached, s.cost]);
      bump(
        spanRollup,
        [day, s.kind, s.kind === "chat" ? model : s.tool!, ms < 1 ? 0 : Math.floor(Math.log2(ms)) + 1],
        [1, s.status === "error" ? 1 : 0],
      );
    });
    for (const r of spanRows) await w.add(TABLES.span, r);
    written.spans += spanRows.length;

    // A human request on every n-th run: the newest still waiting, the rest decided or expired.
    let requestId: string | null = null;
    if (hasRequest) {
      requestId = `req-${id}`;
      const kind = rnd.pick(["approve", "approve", "approve", "choose", "provide", "veto"]);
      const state = pending ? "PENDING" : rnd.pick(["APPROVED", "APPROVED", "APPROVED", "REJECTED", "EXPIRED", "CANCELED"]);
      const asked = seqAt[Math.min(seqAt.length - 1, 3)];
      const decided = state === "APPROVED" || state === "REJECTED";
      const decider = rnd.pick(team.members);
      await w.add(TABLES.request, [
        requestId,
        id,
        "tool:shell:3",
        `${id}-cp3`,
        "gate",
        kind,
        state,
        `Run git push in ${rnd.pick(PLACES)}?`,
        "The agent wants to push to the shared repository.",
        JSON.stringify({ tool: "shell", args: { command: "git push origin main" }, rule: "ask-before-push" }),
        "approver",
        team.id,
        userId,
        1,
        asked + DAY,
        asked + 7 * DAY,
        state === "PENDING" ? asked + DAY : null,
        decided ? JSON.stringify({ decision: state === "APPROVED" ? "approve" : "reject", comment: "" }) : null,
        decided ? decider : null,
        decided ? asked + 60_000 : null,
        decided ? "inbox" : state === "EXPIRED" ? "scheduler" : null,
        asked,
        decided ? asked + 60_000 : asked,
      ]);
      written.requests++;
    }
    // Audit: the policy's decisions on the run's calls, and its request's transitions.
    const nAudit = Math.round(auditPerRun * (0.5 + rnd.next()));
    for (let a = 0; a < nAudit && a < seqAt.length; a++) {
      await w.add(TABLES.audit, [
        seqAt[a],
        "policy.decision",
        `agent:${agent}`,
        agent,
        userId,
        "kernel",
        id,
        null,
        rnd.pick(TOOLS),
        null,
        a % 7 === 0 ? "ask" : "allow",
        JSON.stringify({ rule: a % 7 === 0 ? "ask-before-push" : "default-allow" }),
        team.id,
      ]);
      written.audit++;
    }
    if (requestId) {
      await w.add(TABLES.audit, [
        seqAt[Math.min(seqAt.length - 1, 3)],
        "request.transition",
        "system",
        "Rein",
        userId,
        "kernel",
        id,
        requestId,
        "shell",
        null,
        "PENDING",
        "{}",
        team.id,
      ]);
      written.audit++;
    }
    if ((i + 1) % 10_000 === 0)
      say(
        `  ${(i + 1).toLocaleString()} runs, ${written.events.toLocaleString()} events, ${written.spans.toLocaleString()} spans (${((Date.now() - started) / 1000).toFixed(0)} s)`,
      );
  }
  for (const [k, v] of costRollup) await w.add(TABLES.costRollup, [...(JSON.parse(k) as unknown[]), ...v]);
  for (const [k, v] of spanRollup) await w.add(TABLES.spanRollup, [...(JSON.parse(k) as unknown[]), ...v]);
  say(
    `  wrote ${size.runs.toLocaleString()} runs, ${written.events.toLocaleString()} events, ${written.spans.toLocaleString()} spans, ${written.requests.toLocaleString()} requests, ${written.audit.toLocaleString()} audit entries, ${costRollup.size.toLocaleString()} cost rollups in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
  return { adminId: "year-admin", memberId: "year-member", memberTeams, sampleRunId: sampleRunId || lastRunId };
}
