"use client";
// Cancel (operators of the experiment's team, while it is going) and Delete
// (admins, once it has finished), each after a confirmation.
import { useRouter } from "next/navigation";
import { useState } from "react";
import { ConfirmDialog } from "@/components/ui";
import { OPERATOR_HINT, aRole, roleAtLeast, useMe, useRoleIn } from "@/lib/access";
import { errorMessage } from "@/lib/errors";
import { trpc } from "@/lib/trpc";
import { isActive, type ExperimentView } from "./types";

export function ExperimentActions({ experiment }: { experiment: ExperimentView }) {
  const router = useRouter();
  const utils = trpc.useUtils();
  const { me } = useMe();
  const { canOperate, role } = useRoleIn(experiment.team?.id);
  const isAdmin = roleAtLeast(me?.role, "admin");
  // An experiment without a team is steered by admins only (as the server checks).
  const canCancel = experiment.team ? canOperate : isAdmin;
  const [confirm, setConfirm] = useState<"cancel" | "delete" | null>(null);
  const [error, setError] = useState<string | null>(null);
  const cancel = trpc.evals.cancelExperiment.useMutation({
    onMutate: () => setError(null),
    onSuccess: () => setConfirm(null),
    onError: (err) => setError(errorMessage(err)),
    onSettled: () => {
      void utils.evals.experiments.get.invalidate({ id: experiment.id });
      void utils.evals.experiments.results.invalidate({ id: experiment.id });
      void utils.evals.experiments.list.invalidate();
    },
  });
  const remove = trpc.evals.deleteExperiment.useMutation({
    onMutate: () => setError(null),
    onSuccess: () => {
      void utils.evals.experiments.list.invalidate();
      router.push("/evals/experiments");
    },
    onError: (err) => setError(errorMessage(err)),
  });
  const active = isActive(experiment.status);

  return (
    <div className="row">
      {active && (
        <button
          type="button"
          className="btn btn-danger"
          disabled={!canCancel || cancel.isPending}
          title={
            canCancel
              ? "Stop it: pending runs never start, running ones are canceled"
              : experiment.team
                ? `${OPERATOR_HINT}; you are ${role ? `${aRole(role)} in` : "not in"} the experiment's team`
                : "Canceling an experiment without a team needs an admin"
          }
          onClick={() => setConfirm("cancel")}
          data-testid="experiment-cancel"
        >
          Cancel experiment
        </button>
      )}
      {!active && isAdmin && (
        <button type="button" className="btn btn-danger" onClick={() => setConfirm("delete")} data-testid="experiment-delete">
          Delete
        </button>
      )}
      <ConfirmDialog
        open={confirm === "cancel"}
        title="Cancel this experiment?"
        confirmLabel="Cancel experiment"
        cancelLabel="Keep it running"
        busy={cancel.isPending}
        error={error}
        onConfirm={() => cancel.mutate({ id: experiment.id })}
        onClose={() => (setConfirm(null), setError(null))}
      >
        Its pending runs never start and its running ones are canceled. Runs that already finished keep their scores.
      </ConfirmDialog>
      <ConfirmDialog
        open={confirm === "delete"}
        title="Delete this experiment?"
        confirmLabel="Delete"
        busy={remove.isPending}
        error={error}
        onConfirm={() => remove.mutate({ id: experiment.id })}
        onClose={() => (setConfirm(null), setError(null))}
      >
        Its results and scores are deleted for good; its runs stay in Runs. Experiments that used it as their baseline lose that baseline.
      </ConfirmDialog>
    </div>
  );
}
