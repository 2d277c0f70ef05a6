// This process's vitals (docs/operations.md#watching-a-server): a stall of the event loop shows in the
// last minute's delay and since the start, and the memory figures are the process's own.
import { afterEach, expect, it } from "vitest";
import { readVitals, startVitals, stopVitals } from "./vitals";

afterEach(() => stopVitals());

it("sees a stall of the event loop", async () => {
  expect(readVitals().eventLoopDelayMs.lastMinute).toEqual({ p50: 0, p99: 0, max: 0 });
  startVitals();
  await new Promise((r) => setTimeout(r, 50));
  const until = performance.now() + 120;
  while (performance.now() < until) {
    // Busy: the loop cannot run its timers.
  }
  await new Promise((r) => setTimeout(r, 50));
  const v = readVitals();
  expect(v.eventLoopDelayMs.lastMinute.max).toBeGreaterThanOrEqual(100);
  expect(v.eventLoopDelayMs.sinceStart.max).toBeGreaterThanOrEqual(100);
  expect(v.rssBytes).toBeGreaterThan(v.heapUsedBytes);
  expect(v.heapUsedBytes).toBeGreaterThan(0);
});
