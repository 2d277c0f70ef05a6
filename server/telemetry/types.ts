// TraceSink (I4) and CostAttributor (I11), docs/traces-and-costs.md#attributes:
// spans follow the OpenTelemetry GenAI semantic conventions plus rein.*
// attributes.
export const SPAN_KINDS = ["run", "invoke_agent", "chat", "execute_tool", "human_request", "tier", "improve"] as const;
export type SpanKind = (typeof SPAN_KINDS)[number];

export type AttributeValue = string | number | boolean;

export interface SpanRecord {
  spanId: string;
  traceId: string;
  parentSpanId: string | null;
  runId: string;
  kind: SpanKind;
  name: string;
  startTime: Date;
  endTime: Date | null;
  status: "unset" | "ok" | "error";
  teamId: string | null;
  workflowId: string;
  userId: string | null;
  model: string | null;
  tool: string | null;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  costUsd: number;
  attributes: Record<string, AttributeValue>;
  /** Inputs and outputs (size-capped); dropped by retention, the rest of the span is kept. */
  detail: { input?: unknown; output?: unknown } | null;
}

/** Per million tokens, in USD. */
export interface ModelPrice {
  inputPerMTok: number;
  outputPerMTok: number;
  cacheReadPerMTok: number;
  cacheWritePerMTok: number;
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  /** Included in inputTokens. */
  cachedInputTokens: number;
  /** Included in inputTokens. */
  cacheWriteInputTokens?: number;
}

/** Where spans are stored; `write` is one transaction (a batch). */
export interface SpanSink {
  write(spans: SpanRecord[], traced: Array<{ runId: string; seq: number }>): Promise<void>;
}
