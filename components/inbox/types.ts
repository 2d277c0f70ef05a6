// The inbox's view of human requests
// (docs/human-requests-and-policy.md#the-inbox); types come from the tRPC
// router, labels are the UI's.
import type { RouterInputs, RouterOutputs } from "@/lib/trpc";

export type HumanRequestView = RouterOutputs["humanRequests"]["get"]["request"];
export type RequestTimeline = RouterOutputs["humanRequests"]["get"]["timeline"];
export type RequestKind = HumanRequestView["kind"];
export type RequestState = HumanRequestView["state"];
/** An answer, as decide and decideWithLink take it. */
export type Decision = Omit<RouterInputs["humanRequests"]["decide"], "id">;

export const REQUEST_KINDS: RequestKind[] = ["approve", "choose", "provide", "veto"];
export const OPEN_STATES: RequestState[] = ["PENDING", "ESCALATED"];

export const KIND_LABELS: Record<RequestKind, string> = { approve: "Approve", choose: "Choose", provide: "Provide", veto: "Veto" };

export function isOpen(request: Pick<HumanRequestView, "state">): boolean {
  return OPEN_STATES.includes(request.state);
}

/** "approved", "vetoed", "went ahead": the state in words, for this kind. */
export function stateLabel(request: Pick<HumanRequestView, "state" | "kind" | "decidedBy">): string {
  switch (request.state) {
    case "PENDING":
      return "open";
    case "ESCALATED":
      return "escalated";
    case "APPROVED":
      return request.kind === "veto"
        ? request.decidedBy?.id === "system"
          ? "went ahead"
          : "approved"
        : request.kind === "approve"
          ? "approved"
          : "answered";
    case "REJECTED":
      return request.kind === "veto" ? "vetoed" : request.kind === "approve" ? "rejected" : "declined";
    case "EXPIRED":
      return "expired";
    case "CANCELED":
      return "canceled";
  }
}

/** How a request reached its decision, in words ("inbox", "signed link", …). */
export const CHANNEL_LABELS: Record<string, string> = {
  inbox: "the inbox",
  link: "a signed link",
  api: "the API",
  cli: "the CLI",
  mcp: "MCP",
  slack: "Slack",
  email: "a mailed link",
  scheduler: "the scheduler",
  kernel: "Rein",
};

/** 42_000 -> "42 s", 185_000 -> "3m 05s", 5h 12m, 2d 5h. */
export function formatTimeLeft(ms: number): string {
  if (ms <= 0) return "0 s";
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, "0")}s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h ${String(m % 60).padStart(2, "0")}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}
