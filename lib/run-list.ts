// The Runs list's sort, date range and tag as they live in the URL
// (?sort=cost&dir=asc&from=2026-11-01&to=2026-11-28&tag=nightly), checked
// here so a bad value is named under its field and the results stay.
import type { RouterInputs } from "@/lib/trpc";
import { tagProblem } from "@/lib/run-tags";

export type RunSort = NonNullable<RouterInputs["runs"]["list"]["sort"]>;
export type SortDir = "asc" | "desc";

// Every sort the server takes, and only those: a sort added there and not here is a type error.
const SORTS: Record<RunSort, true> = {
  created: true,
  status: true,
  goal: true,
  agent: true,
  model: true,
  steps: true,
  tokens: true,
  cost: true,
  duration: true,
  creator: true,
};
export const RUN_SORTS = Object.keys(SORTS) as readonly RunSort[];
export const DEFAULT_SORT: { sort: RunSort; dir: SortDir } = { sort: "created", dir: "desc" };
/** Words sort A to Z first; numbers and times largest (newest) first. */
const TEXT_SORTS: readonly RunSort[] = ["status", "goal", "agent", "model", "creator"];

export function parseSort(sort: string | null, dir: string | null): { sort: RunSort; dir: SortDir } {
  const s = (RUN_SORTS as readonly string[]).includes(sort ?? "") ? (sort as RunSort) : DEFAULT_SORT.sort;
  const d: SortDir = dir === "asc" || dir === "desc" ? dir : s === sort ? firstDir(s) : DEFAULT_SORT.dir;
  return { sort: s, dir: d };
}

export function firstDir(sort: RunSort): SortDir {
  return TEXT_SORTS.includes(sort) ? "asc" : "desc";
}

/** A header click: the same column flips its direction, another starts at its natural one. */
export function nextSort(current: { sort: RunSort; dir: SortDir }, column: RunSort): { sort: RunSort; dir: SortDir } {
  if (current.sort === column) return { sort: column, dir: current.dir === "asc" ? "desc" : "asc" };
  return { sort: column, dir: firstDir(column) };
}

export function ariaSort(current: { sort: RunSort; dir: SortDir }, column: RunSort): "ascending" | "descending" | "none" {
  if (current.sort !== column) return "none";
  return current.dir === "asc" ? "ascending" : "descending";
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A calendar day "YYYY-MM-DD" as local midnight, or null when it is not a real day. */
export function parseDay(text: string): Date | null {
  const m = DAY.exec(text);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])];
  const date = new Date(y, mo, d);
  return date.getFullYear() === y && date.getMonth() === mo && date.getDate() === d ? date : null;
}

export interface RangeErrors {
  from?: string;
  to?: string;
}

/** What is wrong with a from..to range of days (each may be empty). */
export function rangeErrors(from: string, to: string): RangeErrors {
  const errors: RangeErrors = {};
  const a = from ? parseDay(from) : null;
  const b = to ? parseDay(to) : null;
  if (from && !a) errors.from = "Not a date; use YYYY-MM-DD";
  if (to && !b) errors.to = "Not a date; use YYYY-MM-DD";
  if (a && b && a > b) errors.to = "The end date is before the start date";
  return errors;
}

/** The list query's from/to for a valid range of days: from the start of `from` to the end of `to`, local time. */
export function rangeQuery(from: string, to: string): { from?: string; to?: string } {
  const a = from ? parseDay(from) : null;
  const b = to ? parseDay(to) : null;
  const end = b ? new Date(b.getFullYear(), b.getMonth(), b.getDate() + 1, 0, 0, 0, -1) : null;
  return { ...(a ? { from: a.toISOString() } : {}), ...(end ? { to: end.toISOString() } : {}) };
}

/** A tag filter from the URL: lowercased, or null with the reason it cannot be used. */
export function tagFilter(text: string): { tag: string; error: string | null } {
  const tag = text.trim().toLowerCase();
  return { tag, error: tag ? tagProblem(tag) : null };
}

export type CancelOutcome = { id: string; outcome: "canceled" | "ended" | "not_found" | "forbidden" };

/** "3 canceled, 1 had already ended" for a bulk cancel's outcomes. */
export function cancelSummary(outcomes: CancelOutcome[]): string {
  const count = (o: CancelOutcome["outcome"]) => outcomes.filter((x) => x.outcome === o).length;
  const parts = [
    [count("canceled"), (n: number) => `${n} canceled`],
    [count("ended"), (n: number) => `${n} had already ended`],
    [count("not_found"), (n: number) => `${n} ${n === 1 ? "was" : "were"} not found`],
    [count("forbidden"), (n: number) => `${n} you may not cancel`],
  ] as const;
  const text = parts.filter(([n]) => n > 0).map(([n, say]) => say(n));
  return text.length ? text.join(", ") : "Nothing to cancel";
}
