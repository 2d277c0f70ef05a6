// The inbox's filters and selection live in the URL
// (?scope=mine&kind=approve,veto&state=closed&id=...), so a view can be shared
// and links from a run (/inbox?id=...) open the request.
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useMemo } from "react";
import { REQUEST_KINDS, type RequestKind, type RequestState } from "./types";

export type InboxScope = "all" | "mine" | "team";

export const SCOPES: { id: InboxScope; label: string }[] = [
  { id: "all", label: "All" },
  { id: "mine", label: "Mine" },
  { id: "team", label: "My teams" },
];

/** State presets; "open" (waiting for a person) is the default. */
export const STATE_FILTERS = {
  open: { label: "Open", states: ["PENDING", "ESCALATED"] },
  approved: { label: "Approved", states: ["APPROVED"] },
  rejected: { label: "Rejected or vetoed", states: ["REJECTED"] },
  expired: { label: "Expired", states: ["EXPIRED"] },
  canceled: { label: "Canceled", states: ["CANCELED"] },
  all: { label: "All states", states: undefined },
} as const satisfies Record<string, { label: string; states: readonly RequestState[] | undefined }>;

export type StateFilter = keyof typeof STATE_FILTERS;

export interface InboxFilters {
  scope: InboxScope;
  kind: RequestKind[];
  state: StateFilter;
  /** The selected request, when one was picked. */
  id: string | null;
}

export function useInboxFilters() {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();

  const filters = useMemo<InboxFilters>(() => {
    const scope = params.get("scope");
    const state = params.get("state");
    return {
      scope: scope === "mine" || scope === "team" ? scope : "all",
      kind: (params.get("kind") ?? "").split(",").filter((k): k is RequestKind => (REQUEST_KINDS as string[]).includes(k)),
      state: state && state in STATE_FILTERS ? (state as StateFilter) : "open",
      id: params.get("id") || null,
    };
  }, [params]);

  const setFilters = useCallback(
    (patch: Partial<InboxFilters>) => {
      const next = { ...filters, ...patch };
      const qs = new URLSearchParams();
      if (next.scope !== "all") qs.set("scope", next.scope);
      if (next.kind.length) qs.set("kind", REQUEST_KINDS.filter((k) => next.kind.includes(k)).join(","));
      if (next.state !== "open") qs.set("state", next.state);
      if (next.id) qs.set("id", next.id);
      const query = qs.toString();
      router.replace(query ? `${pathname}?${query}` : pathname, { scroll: false });
    },
    [filters, pathname, router],
  );

  const active = filters.scope !== "all" || filters.kind.length > 0 || filters.state !== "open";
  return { filters, setFilters, active, clear: () => setFilters({ scope: "all", kind: [], state: "open" }) };
}
