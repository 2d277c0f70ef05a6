"use client";
// The Traces list's filters live in the address (lib/trace-list-filters.ts
// reads them), so a list can be shared and survives a reload.
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useMemo } from "react";
import { EMPTY_TRACE_LIST_FILTERS, TRACE_LIST_PARAMS, type TraceListFilters } from "@/lib/trace-list-filters";

export function useTraceListFilters() {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname() ?? "/traces";

  const filters = useMemo<TraceListFilters>(() => {
    const out = { ...EMPTY_TRACE_LIST_FILTERS };
    for (const key of TRACE_LIST_PARAMS) out[key] = params.get(key) ?? "";
    return out;
  }, [params]);

  const setFilters = useCallback(
    (patch: Partial<TraceListFilters>) => {
      const next = { ...filters, ...patch };
      const qs = new URLSearchParams();
      for (const key of TRACE_LIST_PARAMS) {
        const value = next[key].trim();
        if (value) qs.set(key, value);
      }
      const query = qs.toString();
      router.replace(query ? `${pathname}?${query}` : pathname, { scroll: false });
    },
    [filters, pathname, router],
  );

  const active = TRACE_LIST_PARAMS.some((k) => k !== "range" && k !== "sort" && k !== "order" && filters[k].trim() !== "");
  const clear = useCallback(
    () => setFilters({ ...EMPTY_TRACE_LIST_FILTERS, range: filters.range, sort: filters.sort, order: filters.order }),
    [setFilters, filters],
  );
  return { filters, setFilters, active, clear };
}
