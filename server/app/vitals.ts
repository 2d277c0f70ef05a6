// This process's vitals for an admin's /api/health (docs/operations.md#watching-a-server): its memory,
// and how late its event loop ran over the last minute and since it started. A late event loop is what
// makes every page, socket and health check of the process slow at once, so it is measured all along:
// a timer every 10 ms records how late it fired (perf_hooks histograms keep the figures; the delay
// monitor of perf_hooks cannot be merged into windows).
import { createHistogram, type RecordableHistogram } from "node:perf_hooks";

/** Delay figures in milliseconds. */
export interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
}

export interface Vitals {
  rssBytes: number;
  heapUsedBytes: number;
  uptimeSeconds: number;
  eventLoopDelayMs: { lastMinute: LoopDelay; sinceStart: LoopDelay };
}

const RESOLUTION_MS = 10;
const WINDOW_MS = 10_000;
const WINDOWS = 6;

const ms = (ns: number) => Math.round(ns / 1e4) / 100;
function figures(h: RecordableHistogram): LoopDelay {
  if (!h.count) return { p50: 0, p99: 0, max: 0 };
  return { p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max) };
}

let monitor: { current: RecordableHistogram; windows: RecordableHistogram[]; total: RecordableHistogram; timers: NodeJS.Timeout[] } | null =
  null;

/** Starts measuring (once per process; later calls do nothing). */
export function startVitals(): void {
  if (monitor) return;
  const current = createHistogram();
  const total = createHistogram();
  const windows: RecordableHistogram[] = [];
  let last = performance.now();
  const sampler = setInterval(() => {
    const now = performance.now();
    // How late this tick came, in nanoseconds (a histogram records whole numbers from 1).
    current.record(Math.max(1, Math.round((now - last - RESOLUTION_MS) * 1e6)));
    last = now;
  }, RESOLUTION_MS);
  const rotate = setInterval(() => {
    const w = createHistogram();
    w.add(current);
    total.add(current);
    current.reset();
    windows.push(w);
    if (windows.length > WINDOWS) windows.shift();
  }, WINDOW_MS);
  sampler.unref();
  rotate.unref();
  monitor = { current, windows, total, timers: [sampler, rotate] };
}

/** Stops measuring (tests). */
export function stopVitals(): void {
  if (!monitor) return;
  for (const t of monitor.timers) clearInterval(t);
  monitor = null;
}

/** The figures now; the delays are zero until startVitals ran. */
export function readVitals(): Vitals {
  const memory = process.memoryUsage();
  let lastMinute: LoopDelay = { p50: 0, p99: 0, max: 0 };
  let sinceStart = lastMinute;
  if (monitor) {
    const minute = createHistogram();
    for (const w of monitor.windows) minute.add(w);
    minute.add(monitor.current);
    const all = createHistogram();
    all.add(monitor.total);
    all.add(monitor.current);
    lastMinute = figures(minute);
    sinceStart = figures(all);
  }
  return {
    rssBytes: memory.rss,
    heapUsedBytes: memory.heapUsed,
    uptimeSeconds: Math.round(process.uptime()),
    eventLoopDelayMs: { lastMinute, sinceStart },
  };
}
