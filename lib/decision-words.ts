// What saying no to a request does, and what a decision did, in a person's
// words: asked before a reject is confirmed, and shown once it is decided
// (the signed-link result page, the inbox's outcome). What is true depends on
// where the request came from (its slot): a rejected call does not run and the
// agent is told; a declined loop or replay question stops the run.

/** The fields of a human request these words depend on (components/inbox/types.ts has the whole view). */
export interface DecisionWordsRequest {
  kind: "approve" | "choose" | "provide" | "veto";
  slot: string;
  state: "PENDING" | "ESCALATED" | "APPROVED" | "REJECTED" | "EXPIRED" | "CANCELED";
}

type Request = DecisionWordsRequest;

/** The word for no on this kind: Reject, Veto, Decline. */
export function noWord(kind: Request["kind"]): "Reject" | "Veto" | "Decline" {
  return kind === "approve" ? "Reject" : kind === "veto" ? "Veto" : "Decline";
}

/** Requests about something other than a run's next step (they outlive the run). */
const NOT_A_RUN_STEP: readonly string[] = ["promote", "change", "extension", "memory"];

/** What happens if the person says no, asked before they confirm. */
export function noConsequence(r: Pick<Request, "kind" | "slot">): string {
  if (r.slot === "loop" || r.slot === "replay") return "The run stops. The agent does not go on.";
  if (NOT_A_RUN_STEP.includes(r.slot)) return "Nothing is applied. Whoever asked sees your reason.";
  if (r.kind === "choose" || r.kind === "provide")
    return "The agent is told you declined to answer, with your reason, and decides what to do next.";
  const did = r.kind === "veto" ? "vetoed" : "rejected";
  return `The call does not run. The agent is told you ${did} it, with your reason, and decides what to do next: it may try another way, or stop.`;
}

/** The result page's headline and line under it, once decided. */
export function decidedWords(r: Request): { title: string; detail: string; tone: "yes" | "no" } {
  const stepOfRun = !NOT_A_RUN_STEP.includes(r.slot);
  if (r.state === "REJECTED") {
    const word = r.kind === "approve" ? "Rejected" : r.kind === "veto" ? "Vetoed" : "Declined";
    if (r.slot === "loop" || r.slot === "replay")
      return { title: `${word} — the run stops`, detail: "The agent does not go on.", tone: "no" };
    if (!stepOfRun) return { title: word, detail: "Nothing was applied.", tone: "no" };
    if (r.kind === "choose" || r.kind === "provide")
      return { title: word, detail: "The agent has been told you declined, with your reason, and decides what to do next.", tone: "no" };
    return {
      title: `${word} — the call did not run`,
      detail: "The agent has been told, with your reason, and decides what to do next.",
      tone: "no",
    };
  }
  if (r.state === "APPROVED") {
    if (!stepOfRun) return { title: "Approved", detail: "It is applied.", tone: "yes" };
    if (r.kind === "choose" || r.kind === "provide")
      return { title: "Answered — the run continues", detail: "The agent has your answer.", tone: "yes" };
    return {
      title: "Approved — the run continues",
      detail: r.kind === "veto" ? "The call goes ahead now." : "The call runs.",
      tone: "yes",
    };
  }
  if (r.state === "EXPIRED") return { title: "Expired", detail: "Nobody answered in time.", tone: "no" };
  if (r.state === "CANCELED") return { title: "Canceled", detail: "The run ended or no longer needs an answer.", tone: "no" };
  return { title: "Decided", detail: "", tone: "yes" };
}
