import { describe, expect, it } from "vitest";
import {
  datasetProblemsOf,
  datasetReadOnlyReason,
  expectedSummary,
  itemDraftOf,
  itemOf,
  itemProblemsOf,
  newScorerDraft,
  scenarioLabel,
  scenarioTurns,
  scoringDraftOf,
  scoringOf,
  scoringProblemsOf,
  type ScoringDraft,
} from "./dataset-draft";

const draft = (scorers: Array<Partial<ScoringDraft["scorers"][number]>>, threshold = "0.75"): ScoringDraft => ({
  scorers: scorers.map((s, i) => ({ uid: i, kind: "outcome", weight: "", required: false, settings: "{}", ...s })),
  threshold,
});

describe("scoring drafts", () => {
  it("turn a stored scoring into rows and back, unchanged", () => {
    const stored = {
      scorers: [
        { kind: "outcome", required: true, weight: 2 },
        { kind: "calls_at_most", calls: 20 },
      ],
      threshold: 0.75,
    };
    const rows = scoringDraftOf(stored);
    expect(rows.scorers.map(({ kind, weight, required, settings }) => ({ kind, weight, required, settings }))).toEqual([
      { kind: "outcome", weight: "2", required: true, settings: "{}" },
      { kind: "calls_at_most", weight: "", required: false, settings: '{\n  "calls": 20\n}' },
    ]);
    expect(new Set(rows.scorers.map((s) => s.uid)).size).toBe(2);
    expect(scoringOf(rows)).toEqual({ scoring: stored, problems: { scorers: {}, threshold: [], general: [] } });
  });

  it("send what the browser cannot judge as typed, for the server to refuse in words", () => {
    const { scoring } = scoringOf(draft([{ weight: "heavy" }], "most"));
    expect(scoring).toEqual({ scorers: [{ kind: "outcome", weight: "heavy" }], threshold: "most" });
  });

  it("refuse settings that are not a JSON object or repeat a row's own field, beside that scorer, all at once", () => {
    const { scoring, problems } = scoringOf(
      draft([{ settings: "{ calls: 20 }" }, { settings: "{}" }, { settings: "[1]" }, { settings: '{ "weight": 3, "kind": "x" }' }]),
    );
    expect(scoring).toBeNull();
    expect(problems.scorers[0][0]).toMatch(/^the settings are not valid JSON \(/);
    expect(problems.scorers[1]).toBeUndefined();
    expect(problems.scorers[2]).toEqual(['the settings are a JSON object, e.g. { "calls": 20 }']);
    expect(problems.scorers[3]).toEqual([
      "kind has its own field; take it out of the settings",
      "weight has its own field; take it out of the settings",
    ]);
  });

  it("a new scorer names the settings its kind needs", () => {
    expect(newScorerDraft("calls_at_most", [{ name: "calls", required: true }]).settings).toBe('{\n  "calls": null\n}');
    expect(newScorerDraft("outcome", [{ name: "equals", required: false }]).settings).toBe("{}");
  });

  it("place the server's problems beside the scorer, the threshold, or above the list", () => {
    expect(
      scoringProblemsOf([
        "the pass threshold is a number from 0 to 1",
        "scorer 2 (calls_at_most): calls is the most model calls the run may make",
        "scorer 2 (calls_at_most): weight is a number",
        "scorer 3: a scorer needs a kind, one of outcome, text_contains",
        "a dataset needs at least one scorer",
      ]),
    ).toEqual({
      scorers: {
        1: ["calls is the most model calls the run may make", "weight is a number"],
        2: ["a scorer needs a kind, one of outcome, text_contains"],
      },
      threshold: ["the pass threshold is a number from 0 to 1"],
      general: ["a dataset needs at least one scorer"],
    });
  });

  it("place a dataset's problems by field; without issues the message stands alone", () => {
    const issues = [
      { path: "name", message: "name is 2 to 64 characters" },
      { path: "scoring", message: 'scorer 1 (nope): there is no scorer kind "nope"' },
      { path: "input", message: 'a dataset has no setting "colour"' },
    ];
    expect(datasetProblemsOf(issues, "ignored", ["name", "description", "teamId"])).toEqual({
      fields: { name: ["name is 2 to 64 characters"] },
      scoring: { scorers: { 0: ['there is no scorer kind "nope"'] }, threshold: [], general: [] },
      other: ['a dataset has no setting "colour"'],
    });
    expect(datasetProblemsOf(undefined, "There is already a dataset named x", ["name"]).other).toEqual([
      "There is already a dataset named x",
    ]);
  });
});

describe("who may change a dataset", () => {
  const team = { builtIn: false, archived: false, teamId: "t1" };
  it("says why not, in words", () => {
    expect(datasetReadOnlyReason({ ...team, builtIn: true }, "admin")).toMatch(/^Built-in datasets can't be changed\. Export it/);
    expect(datasetReadOnlyReason({ ...team, archived: true }, "admin")).toMatch(/archived/);
    expect(datasetReadOnlyReason({ ...team, teamId: null }, "operator")).toBe("Only admins change a dataset everyone sees.");
    expect(datasetReadOnlyReason(team, "viewer")).toMatch(/you are a viewer there/);
    expect(datasetReadOnlyReason(team, null)).toMatch(/you are not in it/);
  });
  it("lets operators of its team, and admins, change it", () => {
    for (const role of ["operator", "approver", "admin"] as const) expect(datasetReadOnlyReason(team, role)).toBeNull();
    expect(datasetReadOnlyReason({ ...team, teamId: null }, "admin")).toBeNull();
  });
});

describe("item drafts", () => {
  it("round-trip an item, with an empty scenario sent as none", () => {
    const d = itemDraftOf({ key: "k1", goal: "Do it", agent: null, scenario: null, expected: { outcome: "succeeded" } });
    expect(d).toEqual({ key: "k1", goal: "Do it", agent: "", scenario: "", expected: '{\n  "outcome": "succeeded"\n}' });
    expect(itemOf(d)).toEqual({
      item: { key: "k1", goal: "Do it", agent: null, scenario: null, expected: { outcome: "succeeded" } },
      problems: {},
    });
  });
  it("refuse JSON that does not parse, beside its field, both at once", () => {
    const { item, problems } = itemOf({ key: "", goal: "g", agent: "demo-coder", scenario: "{ turns: [] }", expected: "{" });
    expect(item).toBeNull();
    expect(problems.scenario?.[0]).toMatch(/^the scenario is not valid JSON/);
    expect(problems.expected?.[0]).toMatch(/^the expected outcome is not valid JSON/);
  });
  it("place the server's item problems by field", () => {
    const issues = [
      { path: "goal", message: "goal is required" },
      { path: "expected.scorers", message: "expected.scorers 1: calls is the most model calls the run may make" },
      { path: "input", message: 'an item has no field "colour"' },
    ];
    expect(itemProblemsOf(issues, "x")).toEqual({
      fields: { goal: ["goal is required"], expected: ["expected.scorers 1: calls is the most model calls the run may make"] },
      other: ['an item has no field "colour"'],
    });
  });
});

describe("expectedSummary", () => {
  it("says an expected outcome in a line", () => {
    expect(
      expectedSummary({ outcome: "succeeded", text: "Done.\nAll   tests pass.", scorers: [{ kind: "file_exists" }], notes: "x" }),
    ).toBe("succeeded · “Done. All tests pass.” · 1 scorer · notes");
    expect(expectedSummary({ text: "a".repeat(80) })).toBe(`“${"a".repeat(59)}…”`);
    expect(expectedSummary({})).toBe("nothing expected yet");
  });
});

describe("scenarioLabel", () => {
  it("says whether an item replays, and how long", () => {
    expect(scenarioLabel(scenarioTurns({ turns: [{ text: "a" }, { text: "b" }] }))).toBe("yes (2 turns)");
    expect(scenarioLabel(scenarioTurns({ turns: [{ text: "a" }] }))).toBe("yes (1 turn)");
    expect(scenarioLabel(scenarioTurns(null))).toBe("no");
  });
});
