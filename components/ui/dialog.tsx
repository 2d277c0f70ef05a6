"use client";
// A modal built on <dialog>: focus stays inside, Esc closes, the page behind is inert.
import { useEffect, useRef, type ReactNode } from "react";

export function Dialog({
  open,
  onClose,
  size = "md",
  labelledBy,
  testId,
  children,
}: {
  open: boolean;
  onClose(): void;
  size?: "sm" | "md";
  labelledBy?: string;
  testId?: string;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    if (open && !el.open) {
      el.showModal();
      // showModal focuses the first control; a form names the one a person starts in.
      el.querySelector<HTMLElement>("[data-autofocus]")?.focus();
    }
    if (!open && el.open) el.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      className={`dialog${size === "sm" ? " dialog-sm" : ""}`}
      aria-labelledby={labelledBy}
      data-testid={testId}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      {open && children}
    </dialog>
  );
}

/** The footer of a dialog that starts something: the keyboard hint, Cancel, and the submit button with its busy state. */
/** A form dialog's footer: Cancel, and the submit button with its spinner while the action runs. */
export function DialogFooter({
  onClose,
  busy,
  disabled = false,
  label,
  busyLabel,
  testId,
  hint,
}: {
  onClose(): void;
  busy: boolean;
  disabled?: boolean;
  label: string;
  busyLabel?: string;
  testId: string;
  hint?: ReactNode;
}) {
  return (
    <div className="dialog-footer">
      {hint && <span className="hint">{hint}</span>}
      <span className="spacer" />
      <button type="button" className="btn" onClick={onClose}>
        Cancel
      </button>
      <button type="submit" className="btn btn-primary" disabled={busy || disabled} data-testid={testId}>
        {busy && <span className="spinner" aria-hidden="true" />}
        {busy ? (busyLabel ?? label) : label}
      </button>
    </div>
  );
}

export function StartDialogFooter({
  onClose,
  busy,
  disabled,
  label,
  testId,
}: {
  onClose(): void;
  busy: boolean;
  disabled: boolean;
  label: string;
  testId: string;
}) {
  const hint = (
    <>
      <kbd>Ctrl</kbd> <kbd>Enter</kbd> to start · <kbd>Esc</kbd> to close
    </>
  );
  return <DialogFooter onClose={onClose} busy={busy} disabled={disabled} label={label} busyLabel="Starting…" testId={testId} hint={hint} />;
}
