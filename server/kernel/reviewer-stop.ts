// A run that stops because a person rejected one of its calls ended by a
// person's decision, not by a fault: it ends canceled, saying who and why
// ("Stopped by a reviewer — Ada: not on production"), never as a red failure
// led by an internal code. The run state stays one of the seven; the reviewer
// and their comment travel in the run's reason and its error field
// (code STOPPED_BY_REVIEWER), which the run page, the list, the API and the
// CLI show.
import type { Message } from "@/server/models";

/** The code a gate gives a call a person rejected or vetoed (server/hitl/gate.ts); any other
 * failed call counts when it names the person who refused it (consent to a tier declined). */
const REVIEWER_CODES = new Set(["REJECTED_BY_HUMAN"]);

export const STOPPED_BY_REVIEWER = "STOPPED_BY_REVIEWER";

export interface ReviewerStop {
  /** The reviewer's name as the gate wrote it. */
  by: string;
  comment?: string;
  tool: string;
  /** "rejected", "vetoed" or "declined". */
  verb: string;
}

/** The person's rejection among the tool results the model read last (after its previous turn), if any. */
export function reviewerStopIn(messages: Message[]): ReviewerStop | null {
  const lastAssistant = messages.map((m) => m.role).lastIndexOf("assistant");
  for (const m of messages.slice(lastAssistant + 1)) {
    if (m.role !== "tool") continue;
    for (const part of m.content) {
      const error = (part.output as { error?: { code?: unknown; reviewer?: { by?: unknown; comment?: unknown; verb?: unknown } } } | null)
        ?.error;
      if (!part.isError || !error || typeof error.code !== "string") continue;
      if (!REVIEWER_CODES.has(error.code) && !(error.reviewer && typeof error.reviewer.by === "string")) continue;
      const r = error.reviewer ?? {};
      return {
        by: typeof r.by === "string" && r.by.trim() ? r.by.trim() : "A reviewer",
        ...(typeof r.comment === "string" && r.comment.trim() ? { comment: r.comment.trim() } : {}),
        tool: part.toolName,
        verb: r.verb === "vetoed" || r.verb === "declined" ? r.verb : "rejected",
      };
    }
  }
  return null;
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** How the run's end reads to a person: "Stopped by a reviewer — Ada: not on production". */
export function reviewerStopReason(stop: ReviewerStop): string {
  const said = stop.comment ? `: ${clip(stop.comment.replace(/\s+/g, " "), 500)}` : ` ${stop.verb} the ${stop.tool} call`;
  return `Stopped by a reviewer — ${clip(stop.by, 120)}${said}`;
}
