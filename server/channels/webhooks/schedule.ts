// When a delivery is tried again (issue 19), as Svix does: at once, then
// after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, each later wait jittered
// by up to a fifth either way so endpoints that failed together do not all
// come back together. 410 Gone disables the endpoint at once; 429 and 503 wait
// at least what Retry-After asks (capped); an endpoint that has failed for 5
// days is disabled.
export const RETRY_SCHEDULE_MS: readonly number[] = [
  0,
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3600_000,
  5 * 3600_000,
  10 * 3600_000,
  10 * 3600_000,
];
/** The longest Retry-After Rein honours; a longer one waits this long. */
export const MAX_RETRY_AFTER_MS = 24 * 3600_000;
/** An endpoint failing for this long without one success is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * 3600_000;
const JITTER = 0.2;

export type AttemptVerdict =
  { kind: "delivered" } | { kind: "retry"; at: Date; why: string } | { kind: "failed"; why: string } | { kind: "disable"; why: string };

/** Retry-After as seconds or an HTTP date, in milliseconds from now; null when absent or unreadable. */
export function retryAfterMs(value: string | null | undefined, now: Date): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d{1,10}$/.test(v)) return Math.min(Number(v) * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return null;
  return Math.min(Math.max(0, at - now.getTime()), MAX_RETRY_AFTER_MS);
}

export interface AttemptResult {
  /** The attempt just made, 1 for the first. */
  attempt: number;
  /** The response's status, or null when there was none (a timeout, a refused connection). */
  status: number | null;
  retryAfter?: string | null;
  now: Date;
  /** When the endpoint last succeeded, or was created if it never did. */
  healthySince: Date;
  /** A number in [0, 1): the jitter (tests pass a fixed one). */
  random?: number;
}

/** What happens after an attempt: done, another try at a time, given up, or the endpoint disabled. */
export function afterAttempt(r: AttemptResult): AttemptVerdict {
  const { status, now } = r;
  if (status !== null && status >= 200 && status < 300) return { kind: "delivered" };
  if (status === 410) return { kind: "disable", why: "The endpoint answered 410 Gone" };
  const said = status === null ? "no answer" : `HTTP ${status}`;
  if (now.getTime() - r.healthySince.getTime() >= DISABLE_AFTER_MS)
    return { kind: "disable", why: `The endpoint has failed for 5 days (last: ${said})` };
  if (r.attempt >= RETRY_SCHEDULE_MS.length) return { kind: "failed", why: `Gave up after ${r.attempt} attempts (last: ${said})` };
  const planned = RETRY_SCHEDULE_MS[r.attempt];
  const jittered = Math.round(planned * (1 - JITTER + 2 * JITTER * (r.random ?? Math.random())));
  const asked = status === 429 || status === 503 ? retryAfterMs(r.retryAfter, now) : null;
  const wait = asked !== null ? Math.max(jittered, asked) : jittered;
  return {
    kind: "retry",
    at: new Date(now.getTime() + wait),
    why: asked !== null ? `${said}; the endpoint asked to wait ${Math.round(asked / 1000)} s` : said,
  };
}
