"use client";
// The Memory page: search and filters, then one card per memory with its
// scope, kind, state, uses and source run; edit in place, pin, delete.
import { useCallback, useState } from "react";
import { DebouncedInput } from "@/components/debounced-input";
import { EmptyState, PageShell, SkeletonRows } from "@/components/ui";
import { trpc } from "@/lib/trpc";
import { KINDS, KIND_LABELS, STATES, STATE_LABELS } from "./format";
import { MemoryCard } from "./memory-card";

interface Filters {
  q: string;
  agent: string;
  kind: string;
  state: string;
}

const EMPTY: Filters = { q: "", agent: "", kind: "", state: "" };

export function MemoryList() {
  const [filters, setFilters] = useState<Filters>(EMPTY);
  const set = useCallback((patch: Partial<Filters>) => setFilters((f) => ({ ...f, ...patch })), []);
  const agents = trpc.agents.list.useQuery(undefined, { staleTime: 60_000 });
  const input = {
    ...(filters.q ? { q: filters.q } : {}),
    ...(filters.agent ? { agent: filters.agent } : {}),
    ...(filters.kind ? { kind: filters.kind as (typeof KINDS)[number] } : {}),
    ...(filters.state ? { state: filters.state as (typeof STATES)[number] } : {}),
    limit: 100,
  };
  const list = trpc.memories.list.useQuery(input, { refetchInterval: 15_000 });
  const filtered = filters.q || filters.agent || filters.kind || filters.state;

  return (
    <div className="stack">
      <div className="filters" role="search" aria-label="Filter memories">
        <DebouncedInput
          type="search"
          className="input search-input"
          placeholder="Search memories…"
          aria-label="Search memories"
          value={filters.q}
          onCommit={(q) => set({ q: q.trim() })}
          data-testid="memory-search"
        />
        <select
          className="select"
          aria-label="Agent"
          value={filters.agent}
          onChange={(e) => set({ agent: e.target.value })}
          data-testid="memory-agent-filter"
        >
          <option value="">All agents</option>
          {agents.data?.map((a) => (
            <option key={a.name} value={a.name}>
              {a.name}
            </option>
          ))}
        </select>
        <select
          className="select"
          aria-label="Kind"
          value={filters.kind}
          onChange={(e) => set({ kind: e.target.value })}
          data-testid="memory-kind-filter"
        >
          <option value="">All kinds</option>
          {KINDS.map((k) => (
            <option key={k} value={k}>
              {KIND_LABELS[k]}
            </option>
          ))}
        </select>
        <select
          className="select"
          aria-label="State"
          value={filters.state}
          onChange={(e) => set({ state: e.target.value })}
          data-testid="memory-state-filter"
        >
          <option value="">Every state</option>
          {STATES.map((s) => (
            <option key={s} value={s}>
              {STATE_LABELS[s]}
            </option>
          ))}
        </select>
        {filtered && (
          <button type="button" className="btn btn-ghost" onClick={() => setFilters(EMPTY)} data-testid="memory-clear">
            Clear filters
          </button>
        )}
      </div>
      <PageShell query={list} loading={<SkeletonRows rows={4} columns={5} />} failed="Could not load the memories">
        {(data) =>
          !data.items.length ? (
            filtered ? (
              <EmptyState
                icon="⌕"
                title="No memory matches"
                action={
                  <button type="button" className="btn" onClick={() => setFilters(EMPTY)}>
                    Clear filters
                  </button>
                }
              >
                Try other words, or fewer filters.
              </EmptyState>
            ) : (
              <EmptyState icon="✦" title="No memories yet">
                No memories yet — agents save them with <code>remember</code>, and every run leaves an episode.
              </EmptyState>
            )
          ) : (
            <ul className="stack" style={{ listStyle: "none", margin: 0, padding: 0 }} aria-label="Memories" data-testid="memory-list">
              {data.items.map((m) => (
                <li key={m.id}>
                  <MemoryCard memory={m} />
                </li>
              ))}
            </ul>
          )
        }
      </PageShell>
    </div>
  );
}
