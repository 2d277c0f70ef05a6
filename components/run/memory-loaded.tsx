"use client";
// The timeline card of a memory.loaded event: which memories the run's prompt
// carried (so a person sees why the agent did what it did), their tokens
// against the agent's memory budget, and how many did not fit.
import Link from "next/link";
import { pluralize } from "@/lib/format";

export interface MemoryLoadedPayload {
  memories: Array<{ id: string; title: string; kind: string; scope: string; origin?: string; tokens: number }>;
  budgetTokens: number;
  omitted: number;
}

const KIND_LABELS: Record<string, string> = { fact: "fact", procedure: "procedure", preference: "preference", episode: "episode" };

export function MemoryLoadedCard({ payload }: { payload: MemoryLoadedPayload }) {
  const memories = payload.memories ?? [];
  const used = memories.reduce((n, m) => n + (m.tokens ?? 0), 0);
  return (
    <div className="ev-card" data-testid="memory-loaded">
      <div className="ev-title">
        {memories.length ? `Loaded ${pluralize(memories.length, "memory", "memories")}` : "No memory loaded"}
        <span className="ev-sub">
          {used.toLocaleString()} of {payload.budgetTokens.toLocaleString()} tokens
          {payload.omitted > 0 && ` · ${payload.omitted} more did not fit`}
        </span>
      </div>
      {memories.length > 0 && (
        <ul className="ev-line small" style={{ listStyle: "none", margin: 0, padding: 0, display: "grid", gap: 4 }}>
          {memories.map((m) => (
            <li key={m.id} data-testid="memory-loaded-item" data-id={m.id}>
              <span className="badge badge-outline" style={{ marginRight: 6 }}>
                {KIND_LABELS[m.kind] ?? m.kind} · {m.scope}
              </span>
              {m.origin === "scenario" && (
                <span
                  className="badge badge-outline"
                  style={{ marginRight: 6 }}
                  title="Saved by a run playing its launcher's script: a person's words, not the agent's"
                  data-testid="memory-loaded-scenario"
                >
                  scenario
                </span>
              )}
              <Link href="/memory">{m.title}</Link> <span className="ev-sub">{m.tokens} tokens</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
