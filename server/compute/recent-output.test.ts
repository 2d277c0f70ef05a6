import { describe, expect, it } from "vitest";
import { RecentOutput } from "./recent-output";

describe("RecentOutput", () => {
  it("keeps everything a pod printed while it is under the limit", () => {
    const recent = new RecentOutput(100);
    expect(recent.text()).toBe("");
    recent.push("\u001b[1mbold\u001b[0m\r\n");
    recent.push("");
    recent.push("~ $ ");
    expect(recent.text()).toBe("\u001b[1mbold\u001b[0m\r\n~ $ ");
  });

  it("past the limit keeps the latest output from a line start, says so, and stays bounded", () => {
    const recent = new RecentOutput(100);
    for (let i = 1; i <= 1000; i++) recent.push(`line ${i}\r\n`);
    const text = recent.text();
    expect(text.startsWith("\u001b[0m[Rein: earlier output of this terminal was not kept]\r\n")).toBe(true);
    const lines = text.split("\r\n").slice(1, -1);
    expect(lines.at(-1)).toBe("line 1000");
    // Whole lines only, in order, and no more than the limit of them.
    lines.forEach((l, i) => expect(l).toBe(`line ${1001 - lines.length + i}`));
    expect(lines.join("\r\n").length).toBeLessThanOrEqual(100);
    expect(recent.text()).toBe(text);
  });
});
