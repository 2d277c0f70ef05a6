// The Traces list's filters as the address holds them
// (?agent=&status=&user=&q=&minDuration=&range=&from=&to=&sort=&order=), read
// into the list's query. A value that cannot be read is left out of the query
// and comes back as a message for its field, so the rows stay and the person
// sees what to fix. Pure; the server checks everything again.

export const TRACE_LIST_RANGES = [
  { value: "1h", label: "1 hour", ms: 3_600_000 },
  { value: "24h", label: "24 hours", ms: 86_400_000 },
  { value: "7d", label: "7 days", ms: 7 * 86_400_000 },
  { value: "30d", label: "30 days", ms: 30 * 86_400_000 },
] as const;
export type TraceListRange = (typeof TRACE_LIST_RANGES)[number]["value"];
export const DEFAULT_TRACE_LIST_RANGE: TraceListRange = "7d";

export const TRACE_LIST_SORTS = [
  { value: "time", label: "Newest" },
  { value: "duration", label: "Longest" },
  { value: "cost", label: "Most expensive" },
  { value: "tokens", label: "Most tokens" },
] as const;
export type TraceListSort = (typeof TRACE_LIST_SORTS)[number]["value"];

export const TRACE_LIST_STATUSES = ["queued", "running", "paused", "waiting_human", "succeeded", "failed", "canceled"] as const;
export type TraceListStatus = (typeof TRACE_LIST_STATUSES)[number];

/** The filters as typed (the address's text). */
export interface TraceListFilters {
  agent: string;
  status: string;
  user: string;
  q: string;
  /** Seconds, as typed. */
  minDuration: string;
  range: string;
  /** A date (2026-03-01) or a date and time (2026-03-01T12:00); replaces the range when given. */
  from: string;
  to: string;
  sort: string;
  order: string;
}

export const TRACE_LIST_PARAMS = [
  "agent",
  "status",
  "user",
  "q",
  "minDuration",
  "range",
  "from",
  "to",
  "sort",
  "order",
] as const satisfies ReadonlyArray<keyof TraceListFilters>;

export const EMPTY_TRACE_LIST_FILTERS: TraceListFilters = {
  agent: "",
  status: "",
  user: "",
  q: "",
  minDuration: "",
  range: "",
  from: "",
  to: "",
  sort: "",
  order: "",
};

export type TraceListField = "status" | "minDuration" | "from" | "to";

export interface TraceListQuery {
  agent?: string;
  status?: TraceListStatus[];
  userId?: string;
  q?: string;
  minDurationMs?: number;
  from: string;
  to?: string;
  sort: TraceListSort;
  order: "desc" | "asc";
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/;
const NUMBER = /^\d+(\.\d+)?$|^\.\d+$/;

/** A date as typed: local midnight (the end of the day for `to`), or a local date and time; null when it is not one. */
export function parseDay(text: string, end: boolean): Date | null {
  const t = text.trim();
  let d: Date;
  if (DATE.test(t)) d = new Date(`${t}T${end ? "23:59:59.999" : "00:00:00"}`);
  else if (DATE_TIME.test(t)) d = new Date(t);
  else return null;
  if (Number.isNaN(d.getTime())) return null;
  // "2026-02-30" rolls over to March: not a date.
  const [y, m, day] = t.slice(0, 10).split("-").map(Number);
  return d.getFullYear() === y && d.getMonth() + 1 === m && d.getDate() === day ? d : null;
}

/**
 * The list's query from the filters, and a message per field whose value could
 * not be read (that filter is left out). `now` anchors the time range.
 */
export function traceListQuery(
  f: TraceListFilters,
  now: number,
): { query: TraceListQuery; errors: Partial<Record<TraceListField, string>> } {
  const errors: Partial<Record<TraceListField, string>> = {};
  const range = TRACE_LIST_RANGES.find((r) => r.value === f.range) ?? TRACE_LIST_RANGES.find((r) => r.value === DEFAULT_TRACE_LIST_RANGE)!;
  const sort = TRACE_LIST_SORTS.find((s) => s.value === f.sort)?.value ?? "time";
  const query: TraceListQuery = { from: new Date(now - range.ms).toISOString(), sort, order: f.order === "asc" ? "asc" : "desc" };
  if (f.agent.trim()) query.agent = f.agent.trim();
  if (f.user.trim()) query.userId = f.user.trim();
  if (f.q.trim()) query.q = f.q.trim();
  if (f.status.trim()) {
    const wanted = f.status
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    const unknown = wanted.filter((s) => !(TRACE_LIST_STATUSES as readonly string[]).includes(s));
    if (unknown.length) errors.status = `Unknown status ${unknown.map((s) => `"${s}"`).join(", ")}: pick one from the list`;
    else query.status = wanted as TraceListStatus[];
  }
  const minDuration = f.minDuration.trim();
  if (minDuration) {
    const seconds = NUMBER.test(minDuration) ? Number(minDuration) : Number.NaN;
    if (!Number.isFinite(seconds)) errors.minDuration = `"${minDuration}" is not a number of seconds: type one such as 2.5`;
    else if (seconds > 30 * 86_400) errors.minDuration = "At most 30 days (2,592,000 seconds)";
    else query.minDurationMs = Math.round(seconds * 1000);
  }
  const from = f.from.trim() ? parseDay(f.from, false) : null;
  const to = f.to.trim() ? parseDay(f.to, true) : null;
  if (f.from.trim() && !from) errors.from = `"${f.from.trim()}" is not a date: use 2026-03-01 or 2026-03-01T12:00`;
  if (f.to.trim() && !to) errors.to = `"${f.to.trim()}" is not a date: use 2026-03-01 or 2026-03-01T12:00`;
  if (from && to && from > to) errors.to = "The range ends before it starts";
  else if (from && to && to.getTime() - from.getTime() > 31 * 86_400_000) errors.to = "The range is at most 31 days";
  else {
    // Dates given replace the range: from alone runs to now (at most 31 days back); to alone looks back 7 days.
    if (from && !errors.from) {
      query.from = from.toISOString();
      if (to) query.to = to.toISOString();
      else if (now - from.getTime() > 31 * 86_400_000) {
        errors.from = "The range is at most 31 days: give a To date too, or a later From date";
        query.from = new Date(now - range.ms).toISOString();
      }
    } else if (to) {
      query.to = to.toISOString();
      query.from = new Date(to.getTime() - 7 * 86_400_000).toISOString();
    }
  }
  return { query, errors };
}
