"use client";
// "Compare with…": another experiment of the same dataset (the experiment's
// own baseline first), then Compare. Its own baseline, chosen when it
// started, stays the baseline; with any other, the older of the two is.
import { useRouter } from "next/navigation";
import { useState } from "react";
import { compareHref } from "@/lib/eval-format";
import { formatRelative } from "@/lib/format";
import { trpc } from "@/lib/trpc";
import type { ExperimentView } from "./types";

export function CompareWith({ experiment }: { experiment: ExperimentView }) {
  const router = useRouter();
  const others = trpc.evals.experiments.list.useQuery({ datasetId: experiment.dataset.id, limit: 50 }, { staleTime: 10_000 });
  const list = (others.data ?? []).filter((e) => e.id !== experiment.id);
  const [choice, setChoice] = useState("");
  const fallback = list.find((e) => e.id === experiment.baselineId)?.id ?? list[0]?.id ?? "";
  const otherId = list.some((e) => e.id === choice) ? choice : fallback;
  if (others.isLoading) return null;
  if (list.length === 0) {
    return (
      <span className="small muted" data-testid="compare-with-none">
        No other experiment of {experiment.dataset.name} to compare with yet.
      </span>
    );
  }
  return (
    <div className="row" style={{ gap: 6 }}>
      <label htmlFor="compare-with" className="small muted nowrap">
        Compare with
      </label>
      <select
        id="compare-with"
        className="select"
        style={{ width: "auto", maxWidth: 320 }}
        value={otherId}
        onChange={(e) => setChoice(e.target.value)}
        data-testid="compare-with"
      >
        {list.map((e) => (
          <option key={e.id} value={e.id}>
            {e.name} · {e.status} · {formatRelative(e.startedAt ?? e.createdAt)}
            {e.id === experiment.baselineId ? " (its baseline)" : ""}
          </option>
        ))}
      </select>
      <button
        type="button"
        className="btn"
        disabled={!otherId}
        onClick={() => router.push(compareHref([otherId, experiment.id], otherId === experiment.baselineId ? otherId : null))}
        data-testid="compare-with-go"
      >
        Compare
      </button>
    </div>
  );
}
