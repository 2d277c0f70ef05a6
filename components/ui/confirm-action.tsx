"use client";
// Confirm, then act: a small dialog that says what will happen, with the
// action's button, its busy state and why it failed. docs/development.md#ui-primitives
import { useId, type ReactNode } from "react";
import { errorMessage } from "@/lib/errors";
import { Dialog } from "./dialog";
import { ErrorBlock } from "./error-block";

export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  cancelLabel = "Keep it",
  busy = false,
  error,
  tone = "danger",
  confirmDisabled = false,
  onConfirm,
  onClose,
}: {
  open: boolean;
  title: string;
  children?: ReactNode;
  confirmLabel: string;
  cancelLabel?: string;
  busy?: boolean;
  error?: string | null;
  /** "primary" for an action that builds (approve and merge), "danger" for one that undoes or removes. */
  tone?: "danger" | "primary";
  /** Kept off until what the action needs is given (a reason). */
  confirmDisabled?: boolean;
  onConfirm(): void;
  onClose(): void;
}) {
  const titleId = useId();
  return (
    <Dialog open={open} onClose={onClose} size="sm" labelledBy={titleId} testId="confirm-dialog">
      <div className="dialog-form">
        <div className="dialog-header">
          <h2 id={titleId}>{title}</h2>
        </div>
        <div className="dialog-body">
          {children && <div className="muted">{children}</div>}
          <ErrorBlock message={error} />
        </div>
        <div className="dialog-footer">
          <span className="spacer" />
          <button type="button" className="btn" onClick={onClose} autoFocus>
            {cancelLabel}
          </button>
          <button
            type="button"
            className={`btn ${tone === "primary" ? "btn-primary" : "btn-danger-solid"}`}
            onClick={onConfirm}
            disabled={busy || confirmDisabled}
            data-testid="confirm-dialog-confirm"
          >
            {busy && <span className="spinner" aria-hidden="true" />}
            {confirmLabel}
          </button>
        </div>
      </div>
    </Dialog>
  );
}

/** The part of a tRPC useMutation result a ConfirmAction reads. */
export interface ConfirmableAction {
  isPending: boolean;
  error: unknown;
  reset?(): void;
}

/**
 * A ConfirmDialog for one mutation: busy while it runs, its failure in a
 * person's words, and closing forgets the failure so the next opening starts clean.
 */
export function ConfirmAction({
  action,
  onClose,
  busyLabel,
  confirmLabel,
  ...rest
}: {
  open: boolean;
  title: string;
  children?: ReactNode;
  confirmLabel: string;
  /** The confirm button's words while the action runs ("Removing…"). */
  busyLabel?: string;
  cancelLabel?: string;
  tone?: "danger" | "primary";
  confirmDisabled?: boolean;
  action: ConfirmableAction;
  onConfirm(): void;
  onClose(): void;
}) {
  return (
    <ConfirmDialog
      {...rest}
      confirmLabel={action.isPending && busyLabel ? busyLabel : confirmLabel}
      busy={action.isPending}
      error={action.error ? errorMessage(action.error) : null}
      onClose={() => {
        onClose();
        // A running action is left to finish (and its callbacks to run).
        if (!action.isPending) action.reset?.();
      }}
    />
  );
}
