// Requests per second per provider (docs/runs.md#limits): a token bucket per key.
// A call waits for its token rather than failing; the wait ends early if the
// caller aborts.

export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  /** `rps`: requests per second per key (absent or 0: unlimited); `burst` defaults to rps. */
  constructor(
    private readonly rps: (key: string) => number | undefined,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** How long the next call for `key` must wait, in ms, taking its token if it need not wait. */
  private take(key: string): number {
    const rate = this.rps(key);
    if (!rate || rate <= 0) return 0;
    const now = this.now();
    const b = this.buckets.get(key) ?? { tokens: rate, at: now };
    b.tokens = Math.min(rate, b.tokens + ((now - b.at) / 1000) * rate);
    b.at = now;
    this.buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - b.tokens) / rate) * 1000);
  }

  async acquire(key: string, signal?: AbortSignal): Promise<void> {
    for (;;) {
      const wait = this.take(key);
      if (wait === 0) return;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, wait);
        signal?.addEventListener(
          "abort",
          () => {
            clearTimeout(timer);
            reject(signal.reason ?? new Error("aborted"));
          },
          { once: true },
        );
      });
    }
  }
}

// REIN_PROVIDER_RPS's parser lives with the other configuration (it is checked at start).
export { rpsFromEnv } from "@/server/config";
