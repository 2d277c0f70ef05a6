// The server's tag rules, and the browser's copy of them (lib/run-tags.ts) agreeing on every case.
import { describe, expect, it } from "vitest";
import { tagProblem } from "@/lib/run-tags";
import { TagSchema, TagsSchema } from "./run-tags";

const CASES: Array<[string, boolean]> = [
  ["nightly", true],
  ["Bug-123", true],
  ["ci:main", true],
  ["v1.2_rc", true],
  ["x".repeat(32), true],
  ["x".repeat(33), false],
  ["", false],
  ["has space", false],
  ["<b>", false],
  ["100%", false],
  ["ünï", false],
  ["a/b", false],
];

describe("a tag", () => {
  it.each(CASES)("%j is allowed: %s, on the server and in the browser", (tag, ok) => {
    const server = TagSchema.safeParse(tag);
    expect(server.success).toBe(ok);
    if (ok) expect(server.data).toBe(tag.toLowerCase());
    expect(tag ? tagProblem(tag.toLowerCase()) === null : false).toBe(ok);
  });

  it("lists drop repeats after lower-casing and hold at most 10", () => {
    expect(TagsSchema.parse(["A", "a", "b"])).toEqual(["a", "b"]);
    expect(TagsSchema.safeParse(Array.from({ length: 10 }, (_, i) => `t${i}`)).success).toBe(true);
    expect(TagsSchema.safeParse(Array.from({ length: 11 }, (_, i) => `t${i}`)).success).toBe(false);
  });
});
