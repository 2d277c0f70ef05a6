"use client";
import { useId, type ReactNode } from "react";
import { Dialog } from "@/components/dialog";

export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  cancelLabel = "Keep it",
  busy = false,
  error,
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
          {error && <div className="alert alert-error" role="alert">{error}</div>}
        </div>
        <div className="dialog-footer">
          <span className="spacer" />
          <button type="button" className="btn" onClick={onClose} autoFocus>
            {cancelLabel}
          </button>
          <button type="button" className="btn btn-danger-solid" onClick={onConfirm} disabled={busy} data-testid="confirm-dialog-confirm">
            {busy && <span className="spinner" aria-hidden="true" />}
            {confirmLabel}
          </button>
        </div>
      </div>
    </Dialog>
  );
}
