"use client";
// Pause / Resume / Cancel (operators and up), Retry a failed or canceled run,
// Re-run any run, Add to dataset once the run has finished, and Export scenario.
import { useState } from "react";
import { ConfirmAction, ErrorBlock } from "@/components/ui";
import { PauseIcon, PlayIcon, StopIcon } from "@/components/icons";
import { useRoleIn } from "@/lib/access";
import { errorMessage } from "@/lib/errors";
import type { RunHolder } from "@/lib/run-holder";
import { trpc, type Run, type RunState } from "@/lib/trpc";
import { AddToDatasetButton } from "./add-to-dataset";
import { RerunButton, RetryButton } from "./steer-dialogs";

const TERMINAL: RunState[] = ["succeeded", "failed", "canceled"];

function download(filename: string, data: unknown) {
  const blob = new Blob([JSON.stringify(data, null, 2) + "\n"], { type: "application/json" });
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function RunControls({
  run,
  status,
  pausing,
  holder = null,
}: {
  run: Run;
  status: RunState;
  pausing: boolean;
  holder?: RunHolder | null;
}) {
  const { canOperate, operatorHint } = useRoleIn(run.teamId);
  const utils = trpc.useUtils();
  const [error, setError] = useState<string | null>(null);
  const [confirmCancel, setConfirmCancel] = useState(false);
  const [exporting, setExporting] = useState(false);
  const options = {
    onMutate: () => setError(null),
    onError: (err: unknown) => setError(errorMessage(err)),
    onSettled: () => utils.runs.get.invalidate({ id: run.id }),
  };
  const pause = trpc.runs.pause.useMutation(options);
  const resume = trpc.runs.resume.useMutation(options);
  const cancel = trpc.runs.cancel.useMutation({ ...options, onSuccess: () => setConfirmCancel(false) });
  const busy = pause.isPending || resume.isPending || cancel.isPending;
  const noRole = operatorHint;

  async function exportScenario() {
    setExporting(true);
    setError(null);
    try {
      const scenario = await utils.runs.exportScenario.fetch({ id: run.id });
      download(`rein-run-${run.id}-scenario.json`, scenario);
    } catch (err) {
      setError(`Export failed: ${errorMessage(err)}`);
    } finally {
      setExporting(false);
    }
  }

  const canPause = status === "running" || status === "queued";
  const terminal = TERMINAL.includes(status);

  return (
    <div className="stack" style={{ gap: 6, alignItems: "flex-end" }}>
      <div className="row" style={{ flexWrap: "wrap", justifyContent: "flex-end" }}>
        {canPause && (
          <button
            type="button"
            className="btn"
            onClick={() => pause.mutate({ id: run.id })}
            disabled={!canOperate || busy || pausing}
            title={canOperate ? "Pause after the current step" : noRole}
            data-testid="pause-run"
          >
            {pause.isPending || pausing ? <span className="spinner" aria-hidden="true" /> : <PauseIcon />}
            {pausing ? "Pausing…" : "Pause"}
          </button>
        )}
        {status === "paused" && holder && (
          <span
            className="small muted"
            data-testid="run-held"
            title={`Resume is not offered while ${holder.byName} has the ${holder.thing}`}
          >
            {holder.byName} has the {holder.thing}: Hand back there resumes the run
          </span>
        )}
        {status === "paused" && !holder && (
          <button
            type="button"
            className="btn btn-primary"
            onClick={() => resume.mutate({ id: run.id })}
            disabled={!canOperate || busy}
            title={canOperate ? "Continue from the last checkpoint" : noRole}
            data-testid="resume-run"
          >
            {resume.isPending ? <span className="spinner" aria-hidden="true" /> : <PlayIcon />}
            Resume
          </button>
        )}
        {!terminal && (
          <button
            type="button"
            className="btn btn-danger"
            onClick={() => setConfirmCancel(true)}
            disabled={!canOperate || busy}
            title={canOperate ? "Stop the run for good" : noRole}
            data-testid="cancel-run"
          >
            <StopIcon />
            Cancel
          </button>
        )}
        {(status === "failed" || status === "canceled") && <RetryButton run={run} />}
        <RerunButton run={run} />
        {terminal && <AddToDatasetButton run={run} />}
        <button
          type="button"
          className="btn"
          onClick={exportScenario}
          disabled={exporting}
          title="Download the run's model turns as a scenario to replay"
          data-testid="export-scenario"
        >
          {exporting && <span className="spinner" aria-hidden="true" />}
          Export scenario
        </button>
      </div>
      <ErrorBlock message={error} className="small" testId="control-error" />
      <ConfirmAction
        open={confirmCancel}
        title="Cancel this run?"
        confirmLabel="Cancel run"
        busyLabel="Canceling…"
        cancelLabel="Keep running"
        action={cancel}
        onConfirm={() => cancel.mutate({ id: run.id })}
        onClose={() => setConfirmCancel(false)}
      >
        The agent stops now and a command it is running is killed. A canceled run cannot be resumed.
      </ConfirmAction>
    </div>
  );
}
