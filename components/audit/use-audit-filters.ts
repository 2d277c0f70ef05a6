"use client";
// The audit log's filters live in the URL (?kind=&person=&team=&channel=&run=&q=&from=&to=&routine=1)
// so a filtered view can be shared and survives a reload. Routine allows
// (policy decisions that let a call through) are hidden unless routine=1.
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useMemo } from "react";

export interface AuditFilters {
  kind: string;
  /** A person's user id: what they did. */
  person: string;
  /** A team's id: the rows of its runs and of admins' changes to it. */
  team: string;
  channel: string;
  runId: string;
  q: string;
  /** yyyy-mm-dd, local days, both inclusive */
  from: string;
  to: string;
  /** "1": show routine allows too. */
  routine: string;
}

const KEYS: Record<keyof AuditFilters, string> = {
  kind: "kind",
  person: "person",
  team: "team",
  channel: "channel",
  runId: "run",
  q: "q",
  from: "from",
  to: "to",
  routine: "routine",
};
const DAY = /^\d{4}-\d{2}-\d{2}$/;

export function useAuditFilters() {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname() ?? "/audit";

  const filters = useMemo<AuditFilters>(() => {
    const get = (k: keyof AuditFilters) => params?.get(KEYS[k]) ?? "";
    return {
      kind: get("kind"),
      person: get("person"),
      team: get("team"),
      channel: get("channel"),
      runId: get("runId"),
      q: get("q"),
      from: DAY.test(get("from")) ? get("from") : "",
      to: DAY.test(get("to")) ? get("to") : "",
      routine: get("routine") === "1" ? "1" : "",
    };
  }, [params]);

  const setFilters = useCallback(
    (patch: Partial<AuditFilters>) => {
      const next = { ...filters, ...patch };
      const search = new URLSearchParams();
      for (const k of Object.keys(KEYS) as Array<keyof AuditFilters>) {
        const v = next[k].trim();
        if (v) search.set(KEYS[k], v);
      }
      const qs = search.toString();
      router.replace(qs ? `${pathname}?${qs}` : pathname, { scroll: false });
    },
    [filters, pathname, router],
  );

  const active = (Object.keys(filters) as Array<keyof AuditFilters>).some((k) => k !== "routine" && filters[k] !== "");
  const clear = useCallback(
    () => router.replace(filters.routine ? `${pathname}?routine=1` : pathname, { scroll: false }),
    [filters.routine, pathname, router],
  );
  return { filters, setFilters, active, clear };
}

/** The API's filter for these: dates become the start of `from` and the end of `to`, in local time. */
export function toApiFilter(f: AuditFilters) {
  return {
    kind: f.kind.trim() || undefined,
    actorId: f.person || undefined,
    teamId: f.team || undefined,
    channel: f.channel || undefined,
    runId: f.runId.trim() || undefined,
    q: f.q.trim() || undefined,
    from: f.from ? new Date(`${f.from}T00:00:00`) : undefined,
    to: f.to ? new Date(`${f.to}T23:59:59.999`) : undefined,
    hideRoutine: f.routine !== "1",
  };
}
