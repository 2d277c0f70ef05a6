import { describe, expect, it } from "vitest";
import { TerminalFlow } from "./terminal-flow";

describe("TerminalFlow", () => {
  it("sends until about the high-water mark is unacknowledged, then drops for this client", () => {
    const flow = new TerminalFlow(1000, 250);
    const sent = Array.from({ length: 20 }, (_, i) => flow.offer(i + 1, 100));
    expect(sent.filter(Boolean)).toHaveLength(10);
    expect(flow.behind).toBe(true);
    expect(flow.unacked).toBe(1000);
    // Later chunks are dropped even when one would fit again.
    expect(flow.ack(2)).toBe(false);
    expect(flow.offer(21, 1)).toBe(false);
  });

  it("asks for a snapshot once acks bring a client that was behind under the low-water mark", () => {
    const flow = new TerminalFlow(1000, 250);
    for (let seq = 1; seq <= 11; seq++) flow.offer(seq, 100);
    expect(flow.ack(7)).toBe(false); // 300 left
    expect(flow.ack(8)).toBe(true); // 200 left
    flow.caughtUp();
    expect(flow.behind).toBe(false);
    expect(flow.offer(30, 100)).toBe(true);
    expect(flow.ack(30)).toBe(false);
    expect(flow.unacked).toBe(0);
  });

  it("ignores acks for what it never sent", () => {
    const flow = new TerminalFlow(1000, 250);
    flow.offer(5, 100);
    expect(flow.ack(3)).toBe(false);
    expect(flow.unacked).toBe(100);
    expect(flow.ack(99)).toBe(false);
    expect(flow.unacked).toBe(0);
  });
});
