import { describe, expect, it } from "vitest";
import { formatBytes, formatCost } from "./format";

describe("formatCost", () => {
  it.each([
    [0, "$0"],
    [-0, "$0"],
    [1, "$1.00"],
    [12.345, "$12.35"],
    [1234.5, "$1,234.50"],
    [1_234_567.891, "$1,234,567.89"],
    [0.5, "$0.50"],
    [0.4213, "$0.42"],
    [0.1, "$0.10"],
    [0.05, "$0.05"],
    [0.0421, "$0.042"],
    [0.01, "$0.01"],
    [0.006546, "$0.0065"],
    [0.00012, "$0.00012"],
    [0.00001234, "$0.000012"],
    [0.000001, "$0.000001"],
    [0.0000000001, "<$0.000001"],
    [0.9999, "$1.00"],
    [0.0999, "$0.10"],
    [-0.006546, "-$0.0065"],
    [-12.5, "-$12.50"],
    [Number.NaN, "—"],
    [Number.POSITIVE_INFINITY, "—"],
  ])("%j reads %j", (usd, text) => expect(formatCost(usd)).toBe(text));
});

describe("formatBytes", () => {
  it("reads as people read sizes: bytes, then kB, MB, GB in powers of 1000", () => {
    expect(formatBytes(0)).toBe("0 B");
    expect(formatBytes(999)).toBe("999 B");
    expect(formatBytes(1000)).toBe("1.0 kB");
    expect(formatBytes(3_400_000)).toBe("3.4 MB");
    expect(formatBytes(250_000_000)).toBe("250 MB");
    expect(formatBytes(1.2e12)).toBe("1.2 TB");
    expect(formatBytes(-1)).toBe("—");
  });
});
