// What each kind of data retention keeps is called, in words for Settings ›
// Data and the CLI (docs/operations.md#retention).
import type { RetentionKind } from "@/server/retention";

/** What each kind is, in words for the settings page, the CLI and the run page. */
export const RETENTION_KIND_LABELS: Record<RetentionKind, { label: string; what: string }> = {
  events: { label: "Events", what: "the run's event log: the timeline, messages, tool calls and decisions" },
  terminal: { label: "Terminal input", what: "the lines people typed in a run's terminal while they had control" },
  checkpoints: { label: "Checkpoints", what: "the saved states and replay cache that fork, continue and retry start from" },
  snapshots: { label: "Workspace snapshots", what: "the workspace as it was after each step, which forks restore" },
  workspaces: { label: "Workspaces", what: "the run's files and outputs (the Files tab)" },
  spanDetail: { label: "Span detail", what: "the inputs and outputs of model and tool calls in the trace" },
  spans: { label: "Spans", what: "the trace's spans; the daily cost totals stay" },
  deliveries: { label: "Webhook deliveries", what: "sent webhook messages and their attempts" },
  audit: { label: "Audit log", what: "who decided, changed or was refused what" },
};
