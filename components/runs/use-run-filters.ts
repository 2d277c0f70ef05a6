// The runs list's filters and sort live in the URL
// (?status=running,failed&agent=...&q=...&mine=1&tag=...&from=YYYY-MM-DD&to=...&sort=cost&dir=asc)
// so a filtered list can be shared and survives reloads.
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useMemo, useRef } from "react";
import { DEFAULT_SORT, parseSort, type RunSort, type SortDir } from "@/lib/run-list";
import type { RunState } from "@/lib/trpc";

export const RUN_STATES: RunState[] = ["queued", "running", "paused", "waiting_human", "succeeded", "failed", "canceled"];

export interface RunFilters {
  status: RunState[];
  agent: string;
  q: string;
  mine: boolean;
  tag: string;
  /** Created from / to, calendar days "YYYY-MM-DD" (checked by rangeErrors). */
  from: string;
  to: string;
  sort: RunSort;
  dir: SortDir;
}

export function useRunFilters() {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();

  const filters = useMemo<RunFilters>(() => {
    const status = (params.get("status") ?? "").split(",").filter((s): s is RunState => (RUN_STATES as string[]).includes(s));
    return {
      status,
      agent: params.get("agent") ?? "",
      q: params.get("q") ?? "",
      mine: params.get("mine") === "1",
      tag: params.get("tag") ?? "",
      from: params.get("from") ?? "",
      to: params.get("to") ?? "",
      ...parseSort(params.get("sort"), params.get("dir")),
    };
  }, [params]);

  // Two changes before the address catches up (From, then To) must both land: each builds on the last.
  const latest = useRef(filters);
  const seen = useRef(filters);
  if (seen.current !== filters) {
    seen.current = filters;
    latest.current = filters;
  }

  const setFilters = useCallback(
    (patch: Partial<RunFilters>) => {
      const next = { ...latest.current, ...patch };
      latest.current = next;
      const qs = new URLSearchParams();
      if (next.status.length) qs.set("status", RUN_STATES.filter((s) => next.status.includes(s)).join(","));
      if (next.agent) qs.set("agent", next.agent);
      if (next.q.trim()) qs.set("q", next.q.trim());
      if (next.mine) qs.set("mine", "1");
      if (next.tag.trim()) qs.set("tag", next.tag.trim());
      if (next.from) qs.set("from", next.from);
      if (next.to) qs.set("to", next.to);
      if (next.sort !== DEFAULT_SORT.sort || next.dir !== DEFAULT_SORT.dir) {
        qs.set("sort", next.sort);
        qs.set("dir", next.dir);
      }
      const query = qs.toString();
      router.replace(query ? `${pathname}?${query}` : pathname, { scroll: false });
    },
    [pathname, router],
  );

  const active =
    filters.status.length > 0 || !!filters.agent || !!filters.q.trim() || filters.mine || !!filters.tag || !!filters.from || !!filters.to;
  // Clearing filters keeps the sort: it is how the person reads the list, not what it holds.
  return { filters, setFilters, active, clear: () => setFilters({ status: [], agent: "", q: "", mine: false, tag: "", from: "", to: "" }) };
}
