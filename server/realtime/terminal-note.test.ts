import { describe, expect, it } from "vitest";
import { takeoverNote } from "./terminal-note";

describe("takeoverNote", () => {
  it("lists the commands in order, marks approximate ones and shows the screen", () => {
    const note = takeoverNote({
      byName: "Ada",
      commands: [
        { text: "ls -la", approximate: false },
        { text: "git log", approximate: true },
      ],
      moreCommands: 2,
      programLines: 1,
      screen: "/workspace $ ls -la\ntotal 0",
    });
    expect(note).toContain("While you were paused, Ada took over the terminal and ran these commands");
    expect(note).toContain("$ ls -la\n~ git log\n… and 2 more");
    expect(note).toContain("typed 1 line into programs");
    expect(note).toContain("total 0");
  });

  it("says so when nothing was run, and why control ended", () => {
    const note = takeoverNote({ byName: "Ada", commands: [], moreCommands: 0, programLines: 0, screen: null, reason: "Ada disconnected" });
    expect(note).toContain("ran no commands");
    expect(note).toContain("Control ended because Ada disconnected.");
  });

  it("stays short whatever was typed", () => {
    const commands = Array.from({ length: 100 }, (_, i) => ({ text: `echo ${"x".repeat(1900)} ${i}`, approximate: false }));
    expect(
      takeoverNote({ byName: "Ada", commands, moreCommands: 0, programLines: 0, screen: "y\n".repeat(5000) }).length,
    ).toBeLessThanOrEqual(6000);
  });
});
