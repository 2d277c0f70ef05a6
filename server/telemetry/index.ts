// TraceSink (I4) and CostAttributor (I11), docs/traces-and-costs.md: spans projected
// from the run event log, written in batches, costed from the price table and
// rolled up per day, team, workflow and model.
import { dbDialect, type Db, type NativeSqlite } from "@/server/db";
import type { Kernel } from "@/server/kernel";
import { PgSpanSink } from "./pg-sink";
import { SqliteSpanSink } from "./sqlite-sink";
import { Telemetry } from "./service";
import { TraceSink, type TraceSinkOptions } from "./trace-sink";
import type { SecretKeyring } from "@/server/secrets";
import { applyOtlpSetting, sealStoredOtlpHeaders } from "./otlp-settings";
import type { SpanSink } from "./types";

export * from "./types";
export { costOf, PriceBook, FREE } from "./cost";
export { RunProjection, type RunMeta } from "./project";
export { traceIdOf, spanIdOf, keyWorkflowId, GATEWAY_KEY_RUN_PREFIX } from "./ids";
export { TraceSink, type TraceSinkOptions, type SpanExporter } from "./trace-sink";
export { SqliteSpanSink } from "./sqlite-sink";
export { PgSpanSink } from "./pg-sink";
export { Telemetry, type TelemetryDeps } from "./service";
export {
  listRunSpans,
  runSpanPage,
  runSpanChanges,
  getSpanDetail,
  RunSpanPage,
  RunSpanChanges,
  TRACE_PAGE_SIZE,
  MAX_TRACE_PAGE_SIZE,
  MAX_TRACE_CHANGES,
  MAX_OPEN_SPANS,
  type SpanView,
  type RunSpanPageResult,
  type RunSpanChangesResult,
} from "./queries";
export {
  searchSpans,
  spanFacets,
  resolveSpanSearch,
  SpanSearch,
  SpanFacetsQuery,
  SPAN_SEARCH_STATUSES,
  DEFAULT_SEARCH_DAYS,
  MAX_SEARCH_DAYS,
  MAX_SEARCH_LIMIT,
  type SpanSearchStatus,
  type SpanHit,
  type SpanSearchResult,
  type SpanFacets,
} from "./search";
export {
  listTraces,
  resolveTraceList,
  TraceList,
  TRACE_SORTS,
  MAX_TRACE_LIMIT,
  type TraceSort,
  type TraceRow,
  type TraceListResult,
} from "./trace-list";
export { OtlpSpanExporter, type OtlpOptions } from "./otlp";
export {
  OtlpSetting,
  SETTING_OTLP,
  otlpSetting,
  applyOtlpSetting,
  saveOtlpSetting,
  sealStoredOtlpHeaders,
  testOtlpEndpoint,
  type OtlpSettingView,
} from "./otlp-settings";
export { OtlpSettingError, type OtlpHeaderView } from "./otlp-headers";
export {
  listPrices,
  setPrice,
  deletePrice,
  unpricedModels,
  PriceInput,
  ModelName,
  PriceNotFoundError,
  MAX_PRICE_PER_MTOK,
  type PriceView,
  type PriceActor,
} from "./prices";
export {
  costSummary,
  resolveCostQuery,
  CostQuery,
  COST_GROUP_BYS,
  MAX_RANGE_DAYS,
  DEFAULT_RANGE_DAYS,
  MAX_SERIES,
  OTHER_KEY,
  NO_TEAM_LABEL,
  UNKNOWN_KEY_LABEL,
  type CostGroupBy,
  type CostSummary,
  type CostGroup,
  type CostTotals,
} from "./dashboards";
export {
  healthSummary,
  budgetBurnDown,
  percentileMs,
  bucketUpperMs,
  quantile,
  HealthQuery,
  LATENCY_KINDS,
  type HealthSummary,
  type ToolSuccess,
  type LatencyRow,
  type LatencyKind,
  type HumanRequestHealth,
  type TeamBurnDown,
} from "./health";

/** The span store for the database: a direct connection on SQLite, the client on PostgreSQL. */
function spanSinkFor(db: Db, native: NativeSqlite | null): SpanSink {
  if (dbDialect(db) === "postgres") return new PgSpanSink(db);
  if (!native) throw new Error("Telemetry on SQLite needs the direct SQLite connection (native)");
  return new SqliteSpanSink(native);
}

/** The default wiring: the kernel's events -> spans -> the database, caught up from the log at start. */
export async function startTelemetry(opts: {
  db: Db;
  kernel: Kernel;
  native: NativeSqlite | null;
  keyring?: SecretKeyring;
  sink?: TraceSinkOptions;
  log?: { error(msg: string, err?: unknown): void };
}) {
  const sink = new TraceSink(spanSinkFor(opts.db, opts.native), {
    onError: (err) => opts.log?.error("writing spans failed", err),
    ...opts.sink,
  });
  const telemetry = new Telemetry({ db: opts.db, store: opts.kernel.store, sink, log: opts.log });
  await telemetry.loadPrices();
  // OTLP headers saved in clear by an older version are sealed now, not at the next save.
  await sealStoredOtlpHeaders(opts.db, opts.keyring).catch((err) =>
    opts.log?.error("sealing the saved OTLP headers failed; they stay as they were", err),
  );
  await applyOtlpSetting(opts.db, sink, opts.keyring, opts.log);
  const detach = telemetry.attach(opts.kernel.bus);
  const caughtUp = await telemetry.catchUp();
  return {
    telemetry,
    sink,
    caughtUp,
    /** Projects what the kernel has committed so far and writes it (tests, shutdown). */
    async settle() {
      await telemetry.idle();
      await sink.flush();
    },
    /** Reloads the PriceBook (an admin changed a price). */
    loadPrices: () => telemetry.loadPrices(),
    /** Re-reads the OTLP setting (an admin changed it). */
    applyOtlp: () => applyOtlpSetting(opts.db, sink, opts.keyring, opts.log).then(() => undefined),
    async stop() {
      detach();
      await telemetry.idle();
      await sink.flush();
    },
  };
}
