import { describe, expect, it } from "vitest";
import { nextRow } from "./use-list-keys";

describe("nextRow", () => {
  it.each([
    [-1, 5, 1, 0],
    [-1, 5, -1, 4],
    [0, 5, 1, 1],
    [3, 5, -1, 2],
    [4, 5, 1, 4],
    [0, 5, -1, 0],
    [9, 5, 1, 0],
    [0, 0, 1, -1],
  ] as const)("from %i of %i rows, step %i goes to %i", (current, count, step, want) => {
    expect(nextRow(current, count, step)).toBe(want);
  });
});
