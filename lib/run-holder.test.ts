import { describe, expect, it } from "vitest";
import { runHolder } from "./run-holder";
import type { TimelineEvent } from "./run-events";

let seq = 0;
const control = (type: "terminal.control" | "desktop.control", action: "takeover" | "handback", byName = "Ada"): TimelineEvent =>
  ({
    id: String(++seq),
    runId: "r1",
    seq,
    type,
    actor: "ada",
    createdAt: new Date(0).toISOString(),
    payload: { action, by: byName.toLowerCase(), byName },
  }) as unknown as TimelineEvent;

describe("who has taken over a run", () => {
  it("nobody without a take over", () => {
    expect(runHolder([])).toBeNull();
  });

  it("the person who took over the desktop, until they hand it back", () => {
    const taken = [control("desktop.control", "takeover")];
    expect(runHolder(taken)).toEqual({ thing: "desktop", by: "ada", byName: "Ada" });
    expect(runHolder([...taken, control("desktop.control", "handback")])).toBeNull();
  });

  it("a later take over counts again; the terminal is tracked apart from the desktop", () => {
    const events = [
      control("desktop.control", "takeover"),
      control("desktop.control", "handback"),
      control("terminal.control", "takeover", "Bob"),
    ];
    expect(runHolder(events)).toEqual({ thing: "terminal", by: "bob", byName: "Bob" });
    expect(runHolder([...events, control("desktop.control", "handback")])).toEqual({ thing: "terminal", by: "bob", byName: "Bob" });
  });
});
