import { describe, expect, it } from "vitest";
import { LineRecorder, MAX_LINE_CHARS } from "./terminal-input";

const lines = (r: LineRecorder, ...chunks: string[]) => chunks.flatMap((c) => r.feed(c));

describe("LineRecorder", () => {
  it("splits keystrokes into submitted lines, across messages", () => {
    const r = new LineRecorder();
    expect(lines(r, "ec", "ho hi", "\r", "ls -la\r\n", "pwd\n")).toEqual([
      { text: "echo hi", approximate: false },
      { text: "ls -la", approximate: false },
      { text: "pwd", approximate: false },
    ]);
  });

  it("applies backspace, Ctrl-U, Ctrl-W and Ctrl-C, and leaves out blank lines", () => {
    const r = new LineRecorder();
    expect(lines(r, "lx\u007fs\r", "rm -rf /\u0015echo ok\r", "git commit\u0017status\r", "oops\u0003", "\r", "   \r")).toEqual([
      { text: "ls", approximate: false },
      { text: "echo ok", approximate: false },
      { text: "git status", approximate: false },
    ]);
    expect(r.current).toBe("");
  });

  it("marks lines edited with cursor keys, history or completion as approximate", () => {
    const r = new LineRecorder();
    expect(lines(r, "\u001b[Aecho again\r", "cat READ\t\r", "vi\u001b", "[D x\r", "plain\r")).toEqual([
      { text: "echo again", approximate: true },
      { text: "cat READ", approximate: true },
      { text: "vi x", approximate: true },
      { text: "plain", approximate: false },
    ]);
  });

  it("takes a bracketed paste of several lines as those lines", () => {
    const r = new LineRecorder();
    expect(lines(r, "\u001b[200~echo a\necho b\u001b[201~\r")).toEqual([
      { text: "echo a", approximate: false },
      { text: "echo b", approximate: false },
    ]);
  });

  it("caps a line's length and says so", () => {
    const r = new LineRecorder();
    const [line] = lines(r, "x".repeat(MAX_LINE_CHARS + 50) + "\r");
    expect(line.text).toHaveLength(MAX_LINE_CHARS);
    expect(line.approximate).toBe(true);
  });
});
