// How long the event loop stalls while some work runs: a 5 ms timer notes
// how late each tick comes. Used by the attack suite to show that hostile
// input (catastrophic patterns, deep JSON) never freezes the server.
export interface Stalls {
  /** The longest the loop was blocked, ms. */
  maxMs: number;
  p99Ms: number;
  samples: number;
}

export async function measureStalls<T>(work: () => Promise<T> | T): Promise<{ result: T; stalls: Stalls }> {
  const TICK = 5;
  const lags: number[] = [];
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    lags.push(Math.max(0, now - last - TICK));
    last = now;
  }, TICK);
  let result: T;
  try {
    result = await work();
  } finally {
    // The work's own last stretch counts too, though no tick came after it.
    lags.push(Math.max(0, performance.now() - last - TICK));
    clearInterval(timer);
  }
  const sorted = [...lags].sort((a, b) => a - b);
  return {
    result,
    stalls: { maxMs: sorted[sorted.length - 1] ?? 0, p99Ms: sorted[Math.floor(sorted.length * 0.99)] ?? 0, samples: sorted.length },
  };
}
