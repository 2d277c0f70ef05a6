// The Traces page's filters live in the URL
// (?kind=chat&model=...&tool=shell&team=...&workflow=...&status=error&minMs=500&maxMs=&minCost=0.01&range=24h&q=...)
// so a search can be shared and survives reloads.
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useMemo } from "react";
import type { RouterInputs } from "@/lib/trpc";

type SearchInput = RouterInputs["traces"]["search"];
export type SpanKindFilter = NonNullable<SearchInput["kind"]>;
export type SpanStatusFilter = NonNullable<SearchInput["status"]>;

export const KIND_OPTIONS: Array<{ value: SpanKindFilter; label: string }> = [
  { value: "run", label: "Run" },
  { value: "invoke_agent", label: "Agent invocation" },
  { value: "chat", label: "Model call" },
  { value: "execute_tool", label: "Tool call" },
  { value: "human_request", label: "Human request" },
  { value: "tier", label: "Tier change" },
  { value: "improve", label: "Hack cycle" },
];

export const STATUS_OPTIONS: Array<{ value: SpanStatusFilter; label: string }> = [
  { value: "ok", label: "OK" },
  { value: "error", label: "Error" },
  { value: "open", label: "Open" },
  { value: "unset", label: "Unset" },
];

export const RANGES = [
  { value: "1h", label: "1 hour", ms: 3_600_000 },
  { value: "24h", label: "24 hours", ms: 86_400_000 },
  { value: "7d", label: "7 days", ms: 7 * 86_400_000 },
  { value: "30d", label: "30 days", ms: 30 * 86_400_000 },
] as const;
export type RangeKey = (typeof RANGES)[number]["value"];
export const DEFAULT_RANGE: RangeKey = "7d";

export interface TraceFilters {
  kind: SpanKindFilter | "";
  model: string;
  tool: string;
  team: string;
  workflow: string;
  status: SpanStatusFilter | "";
  /** Kept as typed: numbers are read from them when searching. */
  minMs: string;
  maxMs: string;
  minCost: string;
  range: RangeKey;
  q: string;
}

const EMPTY: TraceFilters = {
  kind: "",
  model: "",
  tool: "",
  team: "",
  workflow: "",
  status: "",
  minMs: "",
  maxMs: "",
  minCost: "",
  range: DEFAULT_RANGE,
  q: "",
};
const PARAMS = ["kind", "model", "tool", "team", "workflow", "status", "minMs", "maxMs", "minCost", "range", "q"] as const;

function oneOf<T extends string>(value: string | null, allowed: readonly T[]): T | "" {
  return value && (allowed as readonly string[]).includes(value) ? (value as T) : "";
}

/** A number from a filter box, or undefined when it is empty (a non-number goes to the server, which says what is wrong). */
export function numberFrom(text: string): number | undefined {
  const t = text.trim();
  return t === "" ? undefined : Number(t);
}

export function useTraceFilters() {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();

  const filters = useMemo<TraceFilters>(
    () => ({
      kind: oneOf(
        params.get("kind"),
        KIND_OPTIONS.map((k) => k.value),
      ),
      model: params.get("model") ?? "",
      tool: params.get("tool") ?? "",
      team: params.get("team") ?? "",
      workflow: params.get("workflow") ?? "",
      status: oneOf(
        params.get("status"),
        STATUS_OPTIONS.map((s) => s.value),
      ),
      minMs: params.get("minMs") ?? "",
      maxMs: params.get("maxMs") ?? "",
      minCost: params.get("minCost") ?? "",
      range:
        oneOf(
          params.get("range"),
          RANGES.map((r) => r.value),
        ) || DEFAULT_RANGE,
      q: params.get("q") ?? "",
    }),
    [params],
  );

  const setFilters = useCallback(
    (patch: Partial<TraceFilters>) => {
      const next = { ...filters, ...patch };
      // The Spans tab keeps its place (?view=spans) as its filters change.
      const qs = new URLSearchParams(params.get("view") ? { view: params.get("view")! } : {});
      for (const key of PARAMS) {
        const value = next[key].trim();
        if (value && !(key === "range" && value === DEFAULT_RANGE)) qs.set(key, value);
      }
      const query = qs.toString();
      router.replace(query ? `${pathname}?${query}` : pathname, { scroll: false });
    },
    [filters, params, pathname, router],
  );

  const active = PARAMS.some((k) => k !== "range" && filters[k].trim() !== "");
  const clear = useCallback(() => setFilters({ ...EMPTY, range: filters.range }), [setFilters, filters.range]);
  return { filters, setFilters, active, clear };
}
