// Password guessing is slowed down per account and per client address
// (docs/security.md#login-throttling): after a few failures each further one
// doubles the wait, up to a cap; while an account or an address waits, its
// attempts are refused without checking the password. Unknown accounts are
// throttled exactly like known ones, so the answers never tell whether an
// account exists. The state is this process's own (one server; several machines
// each keep theirs).

export interface ThrottleSchedule {
  /** Failures allowed before any wait, per account. */
  accountFreeFailures: number;
  /** Failures allowed before any wait, per address (people behind one address share it). */
  addressFreeFailures: number;
  /** The first wait; each further failure doubles it. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Failures older than this are forgotten. */
  windowMs: number;
}

export const DEFAULT_SCHEDULE: ThrottleSchedule = {
  accountFreeFailures: 5,
  addressFreeFailures: 20,
  baseDelayMs: 1_000,
  maxDelayMs: 15 * 60_000,
  windowMs: 15 * 60_000,
};

/** REIN_LOGIN_BACKOFF_MS sets the first wait (tests make it short). */
export function scheduleFromEnv(env: NodeJS.ProcessEnv = process.env): ThrottleSchedule {
  const base = Number(env.REIN_LOGIN_BACKOFF_MS);
  return Number.isFinite(base) && base > 0 ? { ...DEFAULT_SCHEDULE, baseDelayMs: base } : DEFAULT_SCHEDULE;
}

interface Entry {
  failures: number;
  lastFailure: number;
  lockedUntil: number;
}

export class LoginThrottledError extends Error {
  constructor(readonly retryAfterMs: number) {
    super(`Too many failed attempts; try again in ${Math.max(1, Math.ceil(retryAfterMs / 1000))} seconds`);
    this.name = "LoginThrottledError";
  }
}

const MAX_ENTRIES = 100_000;

export class LoginThrottle {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly schedule: ThrottleSchedule = DEFAULT_SCHEDULE,
    private readonly now: () => number = Date.now,
  ) {}

  private keys(email: string, address: string | null) {
    return [
      { key: `account:${email.trim().toLowerCase()}`, free: this.schedule.accountFreeFailures },
      ...(address ? [{ key: `address:${address}`, free: this.schedule.addressFreeFailures }] : []),
    ];
  }

  /** Throws LoginThrottledError while the account or the address must wait. */
  check(email: string, address: string | null): void {
    const now = this.now();
    let wait = 0;
    for (const { key } of this.keys(email, address)) {
      const e = this.entries.get(key);
      if (e && e.lockedUntil > now) wait = Math.max(wait, e.lockedUntil - now);
    }
    if (wait > 0) throw new LoginThrottledError(wait);
  }

  failed(email: string, address: string | null): void {
    const now = this.now();
    for (const { key, free } of this.keys(email, address)) {
      let e = this.entries.get(key);
      if (!e || now - e.lastFailure > this.schedule.windowMs) e = { failures: 0, lastFailure: now, lockedUntil: 0 };
      e.failures++;
      e.lastFailure = now;
      if (e.failures > free) {
        const delay = Math.min(this.schedule.maxDelayMs, this.schedule.baseDelayMs * 2 ** Math.min(30, e.failures - free - 1));
        e.lockedUntil = now + delay;
      }
      this.entries.delete(key); // re-inserted last: the map stays in order of last failure
      this.entries.set(key, e);
    }
    this.prune(now);
  }

  succeeded(email: string): void {
    this.entries.delete(`account:${email.trim().toLowerCase()}`);
  }

  private prune(now: number) {
    for (const [key, e] of this.entries) {
      if (this.entries.size <= MAX_ENTRIES && now - e.lastFailure <= this.schedule.windowMs) break;
      if (e.lockedUntil <= now) this.entries.delete(key);
      else if (this.entries.size <= MAX_ENTRIES) break;
    }
  }
}
