// Reading a demo's goal: only catalogue names, known environments and plain
// numbers count; anything else falls back to the default.
import { describe, expect, it } from "vitest";
import { sessionSeedHeader } from "../../person-message";
import { goalOf, orderMessage, parseDeploy, parseOrder } from "./goal";

const order = (goal: string) => {
  const lines = parseOrder(goal);
  return lines.length ? orderMessage(lines) : null;
};

describe("parseOrder", () => {
  it.each([
    ["Order two Rein stickers", "Two Rein stickers, please"],
    ["order 3 mugs", "Three Rein mugs, please"],
    ["Get me a T-shirt", "One Rein T-shirt, please"],
    ["I'd like stickers", "Rein stickers, please"],
    ["Order a mug and two tote bags", "One Rein mug and two Rein tote bags, please"],
    ["Order two tees, a notebook and 4 stickers", "Four Rein stickers, two Rein T-shirts and one Rein notebook, please"],
    ["ORDER TEN MUGS", "Ten Rein mugs, please"],
  ])("%j orders %j", (goal, expected) => {
    expect(order(goal)).toBe(expected);
  });

  it.each([["Buy a pony"], ["Order mugshots of the team"], ["Order some stickerbooks"], [""]])(
    "%j names nothing the shop sells",
    (goal) => {
      expect(parseOrder(goal)).toEqual([]);
    },
  );

  it("does not take a count the shop refuses, and remembers it was asked", () => {
    const [line] = parseOrder("Order 500 mugs");
    expect(line).toMatchObject({ count: null, refusedCount: "500" });
    expect(orderMessage([line])).toBe("Rein mugs, please");
    expect(parseOrder("order 0 stickers")[0]).toMatchObject({ count: null, refusedCount: "0" });
  });

  it("reads only the start of a very long goal, quickly", () => {
    const goal = `${"a ".repeat(1_000_000)}three mugs`;
    expect(parseOrder(goal)).toEqual([]);
    expect(parseOrder(`two mugs ${"x".repeat(1_000_000)}`)[0]).toMatchObject({ count: 2 });
  });
});

describe("parseDeploy", () => {
  it.each([
    ["Deploy version 1.4.0 to production", "production", ["production"], "1.4.0"],
    ["Deploy v2.3.1 to staging", "staging", ["staging"], "2.3.1"],
    ["push the build to prod", "production", ["production"], null],
    ["Deploy to dev", "development", ["development"], null],
    ["Deploy to staging, then production", null, ["staging", "production"], null],
    ["Ship it", null, [], null],
    ["Deploy 1.4 to the moon", null, [], null],
    ["Deploy 1.4.0.7 to qa", "qa", ["qa"], null],
    ["Deploy `rm -rf /`; production", "production", ["production"], null],
  ])("%j", (goal, environment, named, version) => {
    expect(parseDeploy(goal)).toEqual({ environment, named, version });
  });
});

describe("goalOf", () => {
  it("is the first user turn, or the Goal section of a fresh session's seed", () => {
    expect(
      goalOf([
        { role: "system", content: "be nice" },
        { role: "user", content: "Order a mug" },
        { role: "user", content: "later" },
      ]),
    ).toBe("Order a mug");
    const seed = `${sessionSeedHeader(2, 7)}This is session 2 of this run.\n\nGoal:\nOrder three mugs\n\nTask list: none yet.`;
    expect(goalOf([{ role: "user", content: seed }])).toBe("Order three mugs");
    expect(goalOf([])).toBe("");
  });
});
