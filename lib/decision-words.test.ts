import { describe, expect, it } from "vitest";
import { decidedWords, noConsequence, noWord, type DecisionWordsRequest } from "./decision-words";

const req = (over: Partial<DecisionWordsRequest>): DecisionWordsRequest => ({
  kind: "approve",
  slot: "policy",
  state: "REJECTED",
  ...over,
});

describe("what saying no does, in words", () => {
  it("names no by kind", () => {
    expect([noWord("approve"), noWord("veto"), noWord("choose"), noWord("provide")]).toEqual(["Reject", "Veto", "Decline", "Decline"]);
  });

  it("a rejected call does not run and the agent is told; a declined loop or replay question stops the run", () => {
    expect(noConsequence(req({}))).toMatch(/^The call does not run\. The agent is told you rejected it, with your reason/);
    expect(noConsequence(req({ kind: "veto" }))).toContain("you vetoed it");
    expect(noConsequence(req({ kind: "choose", slot: "loop" }))).toBe("The run stops. The agent does not go on.");
    expect(noConsequence(req({ kind: "choose", slot: "replay" }))).toBe("The run stops. The agent does not go on.");
    expect(noConsequence(req({ kind: "provide", slot: "ask_human" }))).toContain("declined to answer");
    expect(noConsequence(req({ slot: "promote" }))).toContain("Nothing is applied");
  });

  it("the result never says the run continues after a reject", () => {
    const rejected = decidedWords(req({}));
    expect(rejected).toMatchObject({ title: "Rejected — the call did not run", tone: "no" });
    expect(rejected.title + rejected.detail).not.toContain("continues");
    expect(decidedWords(req({ kind: "veto" })).title).toBe("Vetoed — the call did not run");
    expect(decidedWords(req({ kind: "choose", slot: "loop" })).title).toBe("Declined — the run stops");
    expect(decidedWords(req({ kind: "provide", slot: "ask_human" }))).toMatchObject({ title: "Declined", tone: "no" });
  });

  it("an approval says the run continues", () => {
    expect(decidedWords(req({ state: "APPROVED" }))).toMatchObject({ title: "Approved — the run continues", tone: "yes" });
    expect(decidedWords(req({ state: "APPROVED", kind: "choose" }))).toMatchObject({ title: "Answered — the run continues" });
    expect(decidedWords(req({ state: "APPROVED", slot: "change" }))).toMatchObject({ title: "Approved" });
  });
});
