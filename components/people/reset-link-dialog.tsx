"use client";
// "Reset password": makes a single-use link (valid 24 hours) with which the
// person sets a new password; the link is shown once. Their current password
// keeps working until the link is used; an older reset link is withdrawn.
import { Dialog, ErrorBlock } from "@/components/ui";
import { trpc } from "@/lib/trpc";
import { LinkReveal } from "./link-reveal";
import { personName, type Person } from "./person-row";

export function ResetLinkDialog({ person, onClose }: { person: Person | null; onClose(): void }) {
  return (
    <Dialog open={person !== null} onClose={onClose} size="sm" labelledBy="reset-dialog-title" testId="reset-dialog">
      {person && <ResetLink person={person} onClose={onClose} />}
    </Dialog>
  );
}

function ResetLink({ person, onClose }: { person: Person; onClose(): void }) {
  const make = trpc.users.resetLink.useMutation();
  return (
    <div className="dialog-form">
      <div className="dialog-header">
        <div>
          <h2 id="reset-dialog-title">Reset the password of {personName(person)}</h2>
          {!make.data && (
            <p>
              Rein makes a link that works once, for 24 hours. Opening it, they choose a new password; then every session they have ends.
              Until then their current password keeps working. A reset link made for them earlier stops working.
            </p>
          )}
        </div>
      </div>
      <div className="dialog-body">
        {make.data && <LinkReveal url={make.data.url} expiresAt={make.data.expiresAt} email={person.email} label="Password reset link" />}
        <ErrorBlock error={make.error} testId="reset-error" />
      </div>
      <div className="dialog-footer">
        <span className="spacer" />
        {make.data ? (
          <button type="button" className="btn btn-primary" onClick={onClose} data-testid="reset-done">
            I have copied it
          </button>
        ) : (
          <>
            <button type="button" className="btn" onClick={onClose} autoFocus>
              Cancel
            </button>
            <button
              type="button"
              className="btn btn-primary"
              onClick={() => make.mutate({ id: person.id })}
              disabled={make.isPending}
              data-testid="reset-create"
            >
              {make.isPending && <span className="spinner" aria-hidden="true" />}
              Make a reset link
            </button>
          </>
        )}
      </div>
    </div>
  );
}
