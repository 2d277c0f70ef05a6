import { describe, expect, it } from "vitest";
import { parseWhole } from "./experiment-draft";

describe("parseWhole", () => {
  it("takes blank as the default and whole numbers in range", () => {
    expect(parseWhole(" ", 1, 10, 1)).toEqual({ ok: true, value: 1 });
    expect(parseWhole("10", 1, 10, 1)).toEqual({ ok: true, value: 10 });
  });

  it.each([
    ["0", "must be from 1 to 10"],
    ["11", "must be from 1 to 10"],
    ["2.5", "must be a whole number from 1 to 10"],
    ["-1", "must be a whole number from 1 to 10"],
    ["two", "must be a whole number from 1 to 10"],
  ])("refuses %j: %s", (text, error) => expect(parseWhole(text, 1, 10, 1)).toEqual({ ok: false, error }));
});
