import { describe, expect, it } from "vitest";
import { fuzzyFilter, fuzzyScore } from "./fuzzy";

describe("fuzzyScore", () => {
  it.each([
    ["runs", "Runs", true],
    ["RUNS", "runs", true],
    ["nrun", "New run", true],
    ["set tok", "Settings API tokens", true],
    ["tok set", "Settings API tokens", true],
    ["", "anything", true],
    ["xyz", "Runs", false],
    ["snur", "Runs", false],
    ["tokens people", "Settings API tokens", false],
  ])("%j in %j matches: %s", (query, text, matches) => {
    expect(fuzzyScore(query, text) !== null).toBe(matches);
  });

  it("ranks a substring above scattered letters, and a word start above a middle", () => {
    expect(fuzzyScore("run", "Runs")!).toBeGreaterThan(fuzzyScore("run", "Resume unit")!);
    expect(fuzzyScore("tok", "API tokens")!).toBeGreaterThan(fuzzyScore("tok", "stoking")!);
  });
});

describe("fuzzyFilter", () => {
  const pages = ["Runs", "Traces", "Settings: API tokens", "Settings: Teams", "Costs"];

  it("keeps everything, in order, for an empty query", () => {
    expect(fuzzyFilter("  ", pages, (p) => p)).toEqual(pages);
  });

  it("drops what does not match and puts the best first", () => {
    expect(fuzzyFilter("teams", pages, (p) => p)).toEqual(["Settings: Teams"]);
    expect(fuzzyFilter("ts", pages, (p) => p)[0]).toBe("Costs");
    expect(fuzzyFilter("sapi", pages, (p) => p)).toEqual(["Settings: API tokens"]);
    expect(fuzzyFilter("cos", pages, (p) => p)).toEqual(["Costs"]);
  });
});
