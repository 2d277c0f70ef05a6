// Pure words and states of Settings › Channels › Webhooks (the views come
// from webhooks.* in server/channels/webhooks/service.ts).

interface EndpointLike {
  enabled: boolean;
  failingSince: string | null;
}
interface DeliveryLike {
  state: "pending" | "succeeded" | "failed";
  attempts: number;
  nextAttemptAt: string | null;
}

/** An endpoint's state: off (by Rein or a person), failing since a time, or on. */
export type EndpointState = "on" | "off" | "failing";
export function endpointState(e: EndpointLike): EndpointState {
  if (!e.enabled) return "off";
  return e.failingSince ? "failing" : "on";
}

/** "HTTP 200" or the error in a few words. */
export function statusWords(status: number | null | undefined, error?: string | null): string {
  if (status !== null && status !== undefined) return `HTTP ${status}`;
  return error ? error : "no answer";
}

/**
 * A pending delivery that will still change: not tried yet, or with a retry
 * scheduled. (A test ping that failed stays pending with no retry: nothing
 * will move it, so the page need not keep asking.)
 */
export const stillMoving = (d: DeliveryLike) => d.state === "pending" && (d.attempts === 0 || d.nextAttemptAt !== null);

export function prettyBody(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

const HOUR = 3600_000;
/** How far back Recover reaches (Rein keeps what it sent this long). */
export const RECOVER_WINDOW_MS = 7 * 24 * HOUR;

/** A time as the value of an <input type="datetime-local"> (local time, to the minute). */
export function localInputValue(d: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** What is wrong with a Recover start time, in words; null when it is fine. */
export function recoverSinceProblem(value: string, now: number): string | null {
  const at = new Date(value).getTime();
  if (!value || Number.isNaN(at)) return "Choose a date and time";
  if (at > now) return "Choose a time in the past";
  if (at < now - RECOVER_WINDOW_MS) return "Rein keeps what it sent for 7 days: choose a later time";
  return null;
}
