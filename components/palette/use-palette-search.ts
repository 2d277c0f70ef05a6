"use client";
// The palette's server half: runs by goal or id, agents by name, both only
// those the person may see (the list procedures scope them by team).
import { keepPreviousData } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import { errorMessage } from "@/lib/errors";
import { fuzzyFilter } from "@/lib/fuzzy";
import { trpc } from "@/lib/trpc";
import type { PaletteEntry } from "./entries";

const DELAY_MS = 200;
const MIN_CHARS = 2;
const MAX_EACH = 6;

export function usePaletteSearch(query: string, open: boolean) {
  const q = useDebounced(query.trim(), DELAY_MS);
  const searching = open && q.length >= MIN_CHARS;
  const runs = trpc.runs.list.useQuery(
    { q, limit: MAX_EACH },
    { enabled: searching, placeholderData: keepPreviousData, staleTime: 10_000, retry: false },
  );
  const agents = trpc.agents.list.useQuery(undefined, { enabled: open, staleTime: 60_000, retry: false });

  const entries = useMemo<PaletteEntry[]>(() => {
    if (!searching) return [];
    const runEntries: PaletteEntry[] = (runs.data?.runs ?? []).map((r) => ({
      id: `run:${r.id}`,
      group: "Runs",
      label: r.goal,
      detail: `${r.agentName} · ${r.status} · ${r.id}`,
      href: `/runs/${r.id}`,
    }));
    const agentEntries: PaletteEntry[] = fuzzyFilter(q, agents.data ?? [], (a) => a.name)
      .slice(0, MAX_EACH)
      .map((a) => ({
        id: `agent:${a.name}`,
        group: "Agents",
        label: a.name,
        detail: a.description || undefined,
        href: `/agents/${encodeURIComponent(a.name)}`,
      }));
    return [...runEntries, ...agentEntries];
  }, [searching, runs.data, agents.data, q]);

  const error = runs.error ?? agents.error;
  return {
    entries,
    /** Typed, but the search has not answered for it yet. */
    pending: open && query.trim().length >= MIN_CHARS && (q !== query.trim() || runs.isFetching),
    error: error ? errorMessage(error) : null,
  };
}

function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}
