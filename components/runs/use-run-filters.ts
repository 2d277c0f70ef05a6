// The runs list's filters live in the URL (?status=running,failed&agent=...&q=...&mine=1)
// so a filtered list can be shared and survives reloads.
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useMemo } from "react";
import type { RunState } from "@/lib/trpc";

export const RUN_STATES: RunState[] = ["queued", "running", "paused", "waiting_human", "succeeded", "failed", "canceled"];

export interface RunFilters {
  status: RunState[];
  agent: string;
  q: string;
  mine: boolean;
}

export function useRunFilters() {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();

  const filters = useMemo<RunFilters>(() => {
    const status = (params.get("status") ?? "").split(",").filter((s): s is RunState => (RUN_STATES as string[]).includes(s));
    return { status, agent: params.get("agent") ?? "", q: params.get("q") ?? "", mine: params.get("mine") === "1" };
  }, [params]);

  const setFilters = useCallback(
    (patch: Partial<RunFilters>) => {
      const next = { ...filters, ...patch };
      const qs = new URLSearchParams();
      if (next.status.length) qs.set("status", RUN_STATES.filter((s) => next.status.includes(s)).join(","));
      if (next.agent) qs.set("agent", next.agent);
      if (next.q.trim()) qs.set("q", next.q.trim());
      if (next.mine) qs.set("mine", "1");
      const query = qs.toString();
      router.replace(query ? `${pathname}?${query}` : pathname, { scroll: false });
    },
    [filters, pathname, router],
  );

  const active = filters.status.length > 0 || !!filters.agent || !!filters.q.trim() || filters.mine;
  return { filters, setFilters, active, clear: () => setFilters({ status: [], agent: "", q: "", mine: false }) };
}
