import { describe, expect, it } from "vitest";
import {
  move,
  newPoolName,
  removePool,
  renamePool,
  routingDirty,
  routingDraftOf,
  routingIssues,
  setTeamPool,
  toRoutingInput,
  withItem,
  withoutIndex,
} from "./routing-draft";

const SAVED = {
  rules: { code: { strategy: "ordered" as const, candidates: ["a/x", "b/y"] } },
  pools: [{ name: "secret", selfHosted: true, models: ["b/y"] }],
  teamPools: { t1: "secret" },
};

describe("routing as edited", () => {
  it("every task class has a rule in the form; empty ordered ones are left out when saved", () => {
    const d = routingDraftOf(SAVED);
    expect(Object.keys(d.rules)).toEqual(["plan", "code", "classify", "summarize", "judge"]);
    expect(d.rules.plan).toEqual({ strategy: "ordered", candidates: [] });
    expect(toRoutingInput(d)).toEqual(SAVED);
    const cheapest = { ...d, rules: { ...d.rules, judge: { strategy: "cheapest" as const, candidates: [] } } };
    expect(toRoutingInput(cheapest).rules.judge).toEqual({ strategy: "cheapest", candidates: [] });
    expect(routingDirty(cheapest, d)).toBe(true);
    expect(routingDirty(routingDraftOf(SAVED), d)).toBe(false);
  });

  it("candidates move up and down, are added once and removed", () => {
    expect(move(["a", "b", "c"], 2, -1)).toEqual(["a", "c", "b"]);
    expect(move(["a", "b", "c"], 0, 1)).toEqual(["b", "a", "c"]);
    expect(move(["a", "b"], 0, -1)).toEqual(["a", "b"]);
    expect(move(["a", "b"], 1, 1)).toEqual(["a", "b"]);
    expect(withItem(["a"], "a")).toEqual(["a"]);
    expect(withItem(["a"], "b")).toEqual(["a", "b"]);
    expect(withItem(["a"], "")).toEqual(["a"]);
    expect(withoutIndex(["a", "b", "c"], 1)).toEqual(["a", "c"]);
  });

  it("renaming a pool takes its teams along; removing it frees them", () => {
    const d = routingDraftOf(SAVED);
    const renamed = renamePool(d, 0, "private");
    expect(renamed.pools[0].name).toBe("private");
    expect(renamed.teamPools).toEqual({ t1: "private" });
    expect(removePool(d, 0)).toMatchObject({ pools: [], teamPools: {} });
    expect(newPoolName(d)).toBe("Pool 1");
    expect(newPoolName({ ...d, pools: [...d.pools, { name: "Pool 1", selfHosted: false, models: [] }] })).toBe("Pool 2");
  });

  it("a team's pool is set, or cleared with the empty choice", () => {
    const d = routingDraftOf(SAVED);
    expect(setTeamPool(d, "t2", "secret").teamPools).toEqual({ t1: "secret", t2: "secret" });
    expect(setTeamPool(d, "t1", "").teamPools).toEqual({});
  });

  it("the server's issues go to their rule, pool or team", () => {
    expect(
      routingIssues([
        { path: "rules.code.candidates.0", message: 'must be "<provider>/<model id>"' },
        { path: "pools.1.name", message: 'the pool "a" is defined twice' },
        { path: "teamPools.t1", message: 'no pool is named "x"' },
        { path: "", message: "odd" },
      ]),
    ).toEqual({
      "rules.code": ['candidates.0: must be "<provider>/<model id>"'],
      "pools.1": ['name: the pool "a" is defined twice'],
      "teamPools.t1": ['no pool is named "x"'],
      "": ["odd"],
    });
  });
});
