"use client";
// Per team: do memories saved by scenario runs (whose commands a person
// scripted) load into the team's other runs? Off unless a team admin turns it
// on; see docs/memory.md#scenario-memories.
import { trpc } from "@/lib/trpc";
import { errorMessage } from "@/lib/errors";

export function ScenarioSharing() {
  const utils = trpc.useUtils();
  const teams = trpc.memories.scenarioSharing.useQuery();
  const save = trpc.memories.setScenarioSharing.useMutation({ onSuccess: () => utils.memories.scenarioSharing.invalidate() });
  if (!teams.data?.length) return null;
  return (
    <details className="card" data-testid="memory-scenario-sharing">
      <summary className="card-header">Memories of scenario runs</summary>
      <div className="card-body stack" style={{ gap: 8 }}>
        <p className="muted small" style={{ margin: 0 }}>
          A scenario run plays commands its launcher wrote, so what it saves is a person&apos;s words. Those memories stay in that run
          unless its team shares them; shared, they load marked as written by a person&apos;s scenario.
        </p>
        {teams.data.map((t) => (
          <label key={t.teamId} className="form-inline small" data-testid="memory-scenario-sharing-team" data-team={t.teamId}>
            <input
              type="checkbox"
              checked={t.shared}
              disabled={!t.canChange || save.isPending}
              onChange={(e) => save.mutate({ teamId: t.teamId, shared: e.target.checked })}
            />
            {t.teamName}: share with the team&apos;s other runs{!t.canChange && " (a team admin can change this)"}
          </label>
        ))}
        {save.error && <p className="error small">{errorMessage(save.error)}</p>}
      </div>
    </details>
  );
}
