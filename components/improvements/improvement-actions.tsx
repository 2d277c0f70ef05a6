"use client";
// Disable (operator), Re-enable (approver), Promote (approver; active runtime
// tools only) and Delete (admin, after a confirmation). A button for a role I
// lack stays visible, disabled, with the reason; the server checks again.
import { useRouter } from "next/navigation";
import { useState } from "react";
import type { Role } from "@/server/identity";
import { ConfirmDialog } from "@/components/ui";
import { aRole, roleAtLeast, roleInTeam, useMe } from "@/lib/access";
import { errorMessage } from "@/lib/errors";
import { trpc } from "@/lib/trpc";
import type { ImprovementDetail } from "./format";

/** My role for this improvement: as the server reckons it (its teams, or my own role for one made for everyone). */
function useRoleFor(teams: string[]): Role | null {
  const { me } = useMe();
  if (!me) return null;
  if (!teams.length) return me.role;
  const roles = teams.map((t) => roleInTeam(me, t)).filter((r): r is Role => !!r);
  return roles.reduce<Role | null>((best, r) => (!best || roleAtLeast(r, best) ? r : best), null);
}

export function ImprovementActions({ improvement: i }: { improvement: ImprovementDetail }) {
  const router = useRouter();
  const utils = trpc.useUtils();
  const role = useRoleFor(i.scopeTeams);
  const [confirm, setConfirm] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const done = {
    onMutate: () => setError(null),
    onError: (err: unknown) => setError(errorMessage(err)),
    onSettled: () => {
      void utils.improvements.get.invalidate({ id: i.id });
      void utils.improvements.list.invalidate();
      void utils.improvements.dashboard.invalidate();
    },
  };
  const disable = trpc.improvements.disable.useMutation(done);
  const enable = trpc.improvements.enable.useMutation(done);
  const promote = trpc.improvements.promote.useMutation(done);
  const remove = trpc.improvements.delete.useMutation({
    onMutate: () => setError(null),
    onSuccess: () => {
      void utils.improvements.list.invalidate();
      router.push("/improvements");
    },
    onError: (err) => setError(errorMessage(err)),
  });
  const busy = disable.isPending || enable.isPending || promote.isPending || remove.isPending;
  const lacks = (needed: Role, what: string) =>
    roleAtLeast(role, needed)
      ? null
      : `${what} needs the ${needed} role; you are ${aRole(role)}${i.scopeTeams.length ? " in its team" : ""}`;
  const isTool = i.kind === "runtime_tool";

  const disableWhy = lacks("operator", "Switching an improvement off");
  const enableWhy = lacks("approver", "Switching an improvement back on");
  const promoteWhy = lacks("approver", "Promoting a runtime tool") ?? (i.promoted ? "Already promoted: it does not expire" : null);
  const deleteWhy = lacks("admin", "Deleting an improvement");

  return (
    <div className="stack" style={{ alignItems: "flex-end", gap: 6 }}>
      <div className="row" style={{ flexWrap: "wrap", justifyContent: "flex-end" }}>
        {i.state === "active" && (
          <button
            type="button"
            className="btn"
            disabled={!!disableWhy || busy}
            title={disableWhy ?? "Switch it off: agents stop seeing it at once"}
            onClick={() => disable.mutate({ id: i.id })}
            data-testid="improvement-disable"
          >
            Disable
          </button>
        )}
        {(i.state === "disabled" || i.state === "expired") && (
          <button
            type="button"
            className="btn btn-primary"
            disabled={!!enableWhy || busy}
            title={enableWhy ?? (isTool && !i.promoted ? "Switch it back on, for another 7 days" : "Switch it back on")}
            onClick={() => enable.mutate({ id: i.id })}
            data-testid="improvement-enable"
          >
            Re-enable
          </button>
        )}
        {isTool && i.state === "active" && (
          <button
            type="button"
            className="btn btn-primary"
            disabled={!!promoteWhy || busy}
            title={promoteWhy ?? "Keep it for good: it no longer expires after 7 days"}
            onClick={() => promote.mutate({ id: i.id })}
            data-testid="improvement-promote"
          >
            Promote
          </button>
        )}
        <button
          type="button"
          className="btn btn-danger"
          disabled={!!deleteWhy || busy}
          title={deleteWhy ?? "Delete this version for good"}
          onClick={() => setConfirm(true)}
          data-testid="improvement-delete"
        >
          Delete
        </button>
      </div>
      {error && !confirm && (
        <div className="error-box" role="alert" data-testid="improvement-action-error">
          {error}
        </div>
      )}
      <ConfirmDialog
        open={confirm}
        title={`Delete ${i.name} v${i.version}?`}
        confirmLabel="Delete"
        busy={remove.isPending}
        error={error}
        onConfirm={() => remove.mutate({ id: i.id })}
        onClose={() => (setConfirm(false), setError(null))}
      >
        This version, its trigger cases and its record of uses are deleted for good
        {isTool && i.state === "active" ? ", and agents stop seeing the tool at once" : ""}. Runs that used it keep their timelines.
        Disabling it instead keeps the record.
      </ConfirmDialog>
    </div>
  );
}
