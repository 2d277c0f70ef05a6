// Optional OTLP/HTTP export (docs/traces-and-costs.md#settings--telemetry) with
// the OpenTelemetry JS SDK's exporter: Rein's stored spans become ReadableSpans
// and go to any collector. A span is exported once, when it has ended.
import { SpanKind, SpanStatusCode, TraceFlags, type SpanContext } from "@opentelemetry/api";
import { ExportResultCode, hrTimeDuration, millisToHrTime } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { redactor } from "@/server/secrets";
import type { SpanRecord } from "./types";

const RESOURCE = resourceFromAttributes({ "service.name": "rein" });
const SCOPE = { name: "rein", version: "1" };
const REMEMBERED = 100_000;

function toReadable(s: SpanRecord): ReadableSpan {
  const context: SpanContext = { traceId: s.traceId, spanId: s.spanId, traceFlags: TraceFlags.SAMPLED };
  const start = millisToHrTime(s.startTime.getTime());
  const end = millisToHrTime((s.endTime ?? s.startTime).getTime());
  return {
    name: s.name,
    kind: s.kind === "chat" ? SpanKind.CLIENT : SpanKind.INTERNAL,
    spanContext: () => context,
    parentSpanContext: s.parentSpanId ? { traceId: s.traceId, spanId: s.parentSpanId, traceFlags: TraceFlags.SAMPLED } : undefined,
    startTime: start,
    endTime: end,
    duration: hrTimeDuration(start, end),
    status: { code: s.status === "error" ? SpanStatusCode.ERROR : s.status === "ok" ? SpanStatusCode.OK : SpanStatusCode.UNSET },
    attributes: s.attributes,
    links: [],
    events: [],
    ended: true,
    resource: RESOURCE,
    instrumentationScope: SCOPE,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

export interface OtlpOptions {
  /** The collector's traces endpoint, e.g. http://collector:4318/v1/traces. */
  url: string;
  headers?: Record<string, string>;
  onError?: (message: string) => void;
}

export class OtlpSpanExporter {
  private readonly exporter: OTLPTraceExporter;
  private readonly sent = new Set<string>();
  /** Header values are credentials: a failure message (logged, shown on Test) never carries one. */
  private readonly redact: (text: string) => string;

  constructor(readonly options: OtlpOptions) {
    this.exporter = new OTLPTraceExporter({ url: options.url, headers: options.headers, timeoutMillis: 10_000 });
    this.redact = redactor(Object.entries(options.headers ?? {}).map(([name, value]) => ({ name: `otlp-header:${name}`, value })));
  }

  /** Sends the ended spans of a written batch that were not sent before; never throws. */
  export(spans: SpanRecord[]): Promise<void> {
    const fresh = spans.filter((s) => s.endTime && !this.sent.has(s.spanId));
    if (fresh.length === 0) return Promise.resolve();
    for (const s of fresh) this.sent.add(s.spanId);
    if (this.sent.size > REMEMBERED) [...this.sent].slice(0, this.sent.size - REMEMBERED).forEach((id) => this.sent.delete(id));
    return new Promise((resolve) => {
      this.exporter.export(fresh.map(toReadable), (result) => {
        if (result.code !== ExportResultCode.SUCCESS)
          this.options.onError?.(this.redact(`OTLP export to ${this.options.url} failed: ${exportFailure(result.error)}`));
        resolve();
      });
    });
  }

  shutdown(): Promise<void> {
    return this.exporter.shutdown();
  }
}

/**
 * Why an export failed, from the status code or the kind of network error
 * only: never the answer's body or reason phrase, which whatever listens at
 * the URL chooses (an admin's Test must not read other services' pages).
 */
export function exportFailure(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === "number" && code >= 100 && code < 600) {
    const why =
      code === 401 || code === 403
        ? " (the collector refused the credentials)"
        : code === 404
          ? " (no OTLP endpoint at this path)"
          : code >= 500
            ? " (the collector failed)"
            : "";
    return `the collector answered HTTP ${code}${why}`;
  }
  const message = String((error as Error | undefined)?.message ?? "");
  if (/ECONNREFUSED/.test(message)) return "nothing is listening there (connection refused)";
  if (/ENOTFOUND|EAI_AGAIN/.test(message)) return "the host name does not resolve";
  if (/timeout|ETIMEDOUT|timed out/i.test(message)) return "it did not answer in time";
  if (/ECONNRESET|socket hang up/i.test(message)) return "the connection was cut";
  return "the connection failed";
}
