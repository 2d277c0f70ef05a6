import { describe, expect, it } from "vitest";
import { teamScopeIds, teamScopeNames } from "./team-scope";

const teams = [
  { id: "t1", name: "alpha" },
  { id: "t2", name: "beta" },
];

describe("team scopes in pages", () => {
  it("shows names for ids and sends ids for names; * stays any team", () => {
    expect(teamScopeNames(["t2", "*", "gone"], teams)).toEqual(["beta", "*", "a removed team"]);
    expect(teamScopeNames(["t2", "gone"], teams, { dropRemoved: true })).toEqual(["beta"]);
    expect(teamScopeIds(["beta", "*", "nobody"], teams)).toEqual(["t2", "*", "nobody"]);
  });
});
