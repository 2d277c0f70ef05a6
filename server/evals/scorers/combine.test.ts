// The combiner (weighted mean, threshold, required scorers) and a dataset's scoring configuration.
import { describe, expect, it } from "vitest";
import { combine, parseScoring, scoreItem, type ScoredBy } from "./index";
import { call, inputOf } from "./__fixtures__/input";

const scored = (kind: string, weight: number, result: ScoredBy["result"], required = false): ScoredBy => ({
  kind,
  weight,
  required,
  result,
});
const pass = { score: 1, passed: true, detail: "" };
const fail = { score: 0, passed: false, detail: "" };

describe("combine", () => {
  it("is the weighted mean of the scorers that ran, passing at the threshold", () => {
    const list = [
      scored("outcome", 3, pass),
      scored("tools_used", 1, { score: 0.5, passed: false, detail: "" }),
      scored("command", 1, fail),
    ];
    expect(combine(list, 0.7)).toEqual({ score: 0.7, passed: true, failedRequired: [], detail: "score 0.700 reaches the threshold 0.7" });
    expect(combine(list, 0.71)).toMatchObject({ score: 0.7, passed: false, detail: "score 0.700 is under the threshold 0.71" });
  });

  it("leaves skipped scorers out of the mean", () => {
    const list = [scored("outcome", 1, pass), scored("command", 5, { skipped: true, reason: "no sandbox" })];
    expect(combine(list, 1)).toMatchObject({ score: 1, passed: true });
  });

  it("fails the item when a required scorer fails or was skipped, whatever the score", () => {
    expect(combine([scored("outcome", 9, pass), scored("command", 1, fail, true)], 0.5)).toEqual({
      score: 0.9,
      passed: false,
      failedRequired: ["command"],
      detail: "score 0.900 reaches the threshold 0.5; required scorers did not pass: command",
    });
    expect(combine([scored("outcome", 1, pass), scored("command", 1, { skipped: true, reason: "no sandbox" }, true)], 0.5)).toMatchObject({
      passed: false,
      failedRequired: ["command"],
    });
  });

  it("has no score when every scorer was skipped, and does not pass", () => {
    expect(combine([scored("command", 1, { skipped: true, reason: "no sandbox" })], 0)).toEqual({
      score: null,
      passed: false,
      failedRequired: [],
      detail: "every scorer was skipped, so nothing was checked",
    });
  });
});

describe("parseScoring and scoreItem", () => {
  it("names the scorer each problem belongs to", () => {
    const r = parseScoring({ threshold: 1.5, scorers: [{ kind: "outcome" }, { kind: "tool_sequence", steps: [] }, { kind: "nope" }] });
    expect(r).toEqual({
      ok: false,
      problems: [
        "the pass threshold is a number from 0 to 1",
        "scorer 2 (tool_sequence): steps: a tool sequence needs at least one tool",
        'scorer 3 (nope): there is no scorer kind "nope"; the kinds are outcome, text_contains, text_matches, file_exists, file_contains, command, cost_at_most, calls_at_most, duration_at_most, tools_used, tools_not_used, tool_sequence, judge, judge_pairwise',
      ],
    });
    expect(parseScoring({ scorers: [] })).toEqual({ ok: false, problems: ["a dataset needs at least one scorer"] });
  });

  it("scores an item with every scorer and combines them", async () => {
    const r = parseScoring({
      threshold: 0.75,
      scorers: [
        { kind: "outcome", weight: 2, required: true },
        { kind: "tools_used", tools: ["shell"] },
        { kind: "text_contains", text: "done" },
      ],
    });
    if (!r.ok) throw new Error(r.problems.join("; "));
    const verdict = await scoreItem(inputOf({ toolCalls: [call("shell")], finalText: "not finished" }), r.scoring);
    expect(verdict).toMatchObject({ score: 0.75, passed: true, failedRequired: [] });
    expect(verdict.scorers.map((s) => [s.kind, "skipped" in s.result ? null : s.result.passed])).toEqual([
      ["outcome", true],
      ["tools_used", true],
      ["text_contains", false],
    ]);
    expect(await scoreItem(inputOf({ status: "failed", toolCalls: [call("shell")], finalText: "done" }), r.scoring)).toMatchObject({
      score: 0.5,
      passed: false,
      failedRequired: ["outcome"],
    });
  });
});
