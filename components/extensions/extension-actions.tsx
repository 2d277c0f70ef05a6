"use client";
// What a person may do with an extension, by role: approve or reject one
// waiting for approval (an admin other than its proposer), switch one off or
// on (approver), remove it (admin). A button for a role I lack stays visible,
// disabled, with the reason; the server checks again.
import { useState } from "react";
import { aRole, roleAtLeast, useMe } from "@/lib/access";
import { errorMessage } from "@/lib/errors";
import { trpc } from "@/lib/trpc";
import type { ExtensionDetail } from "./format";

export function ExtensionActions({ extension: x }: { extension: ExtensionDetail }) {
  const utils = trpc.useUtils();
  const { me } = useMe();
  const [error, setError] = useState<string | null>(null);
  const done = {
    onMutate: () => setError(null),
    onSuccess: (d: ExtensionDetail) => utils.extensions.get.setData({ id: d.id }, d),
    onError: (err: unknown) => setError(errorMessage(err)),
    onSettled: () => void utils.extensions.list.invalidate(),
  };
  const approve = trpc.extensions.approve.useMutation(done);
  const reject = trpc.extensions.reject.useMutation(done);
  const disable = trpc.extensions.disable.useMutation(done);
  const enable = trpc.extensions.enable.useMutation(done);
  const remove = trpc.extensions.remove.useMutation(done);
  const busy = approve.isPending || reject.isPending || disable.isPending || enable.isPending || remove.isPending;
  const role = me?.role ?? null;
  const notApprover = roleAtLeast(role, "approver")
    ? null
    : `Switching an extension off or on needs the approver role; you are ${aRole(role)}`;
  const notAdmin = roleAtLeast(role, "admin") ? null : `This needs the admin role; you are ${aRole(role)}`;
  const ownProposal = !!me && x.createdBy?.id === me.userId ? "You proposed it: another admin approves it" : null;
  const id = { id: x.id };
  return (
    <div className="stack" style={{ alignItems: "flex-end", gap: 6 }}>
      <div className="row" style={{ gap: 8 }}>
        {x.state === "awaiting_approval" && (
          <>
            <button
              type="button"
              className="btn btn-primary"
              disabled={!!(notAdmin ?? ownProposal) || busy}
              title={notAdmin ?? ownProposal ?? "Install it for every agent"}
              onClick={() => approve.mutate(id)}
              data-testid="extension-approve"
            >
              Approve and install
            </button>
            <button
              type="button"
              className="btn"
              disabled={!!notAdmin || busy}
              title={notAdmin ?? "Turn it down: it is never installed"}
              onClick={() => reject.mutate(id)}
              data-testid="extension-reject"
            >
              Reject
            </button>
          </>
        )}
        {x.state === "installed" && (
          <button
            type="button"
            className="btn"
            disabled={!!notApprover || busy}
            title={notApprover ?? "Switch it off: its tools and hooks leave every run at once"}
            onClick={() => disable.mutate(id)}
            data-testid="extension-disable"
          >
            Disable
          </button>
        )}
        {x.state === "disabled" && (
          <button
            type="button"
            className="btn btn-primary"
            disabled={!!notApprover || busy}
            title={notApprover ?? "Switch it back on"}
            onClick={() => enable.mutate(id)}
            data-testid="extension-enable"
          >
            Enable
          </button>
        )}
        {x.state !== "removed" && (
          <button
            type="button"
            className="btn btn-danger"
            disabled={!!notAdmin || busy}
            title={notAdmin ?? "Remove it for good"}
            onClick={() => remove.mutate(id)}
            data-testid="extension-remove"
          >
            Remove
          </button>
        )}
      </div>
      {error && (
        <div className="error-box" role="alert" data-testid="extension-action-error">
          {error}
        </div>
      )}
    </div>
  );
}
