"use client";
// "Save as version N": asks why (the change note), then saves. When someone
// saved meanwhile it says so; the edits stay, and "Save over it" saves them
// on top of the newer version.
import { useEffect, useId, useState, type FormEvent } from "react";
import { Dialog, ErrorBlock, FieldError } from "@/components/ui";

export function SaveDialog({
  open,
  version,
  isNew,
  busy,
  error,
  conflict,
  onSave,
  onClose,
}: {
  open: boolean;
  version: number;
  isNew: boolean;
  busy: boolean;
  error: string | null;
  conflict: string | null;
  onSave(note: string, overwrite: boolean): void;
  onClose(): void;
}) {
  const titleId = useId();
  const [note, setNote] = useState("");
  const [noteError, setNoteError] = useState<string | null>(null);
  useEffect(() => {
    if (open) setNoteError(null);
  }, [open]);

  function submit(e: FormEvent, overwrite = false) {
    e.preventDefault();
    if (busy) return;
    if (!isNew && !note.trim()) {
      setNoteError("Say what changed, in a few words: the versions list shows it.");
      return;
    }
    onSave(note.trim(), overwrite);
  }

  return (
    <Dialog open={open} onClose={onClose} size="sm" labelledBy={titleId} testId="agent-save-dialog">
      <form className="dialog-form" onSubmit={submit} noValidate>
        <div className="dialog-header">
          <div>
            <h2 id={titleId}>{isNew ? "Create the agent" : `Save as version ${version}`}</h2>
            <p>{isNew ? "It is saved as version 1." : "New runs use the new version; runs already going keep theirs."}</p>
          </div>
        </div>
        <div className="dialog-body">
          <div className="field">
            <label htmlFor="agent-change-note">Change note{isNew ? " (optional)" : ""}</label>
            <input
              id="agent-change-note"
              className="input"
              value={note}
              maxLength={500}
              autoFocus
              onChange={(e) => {
                setNote(e.target.value);
                setNoteError(null);
              }}
              placeholder={isNew ? "First version" : "What changed and why"}
              aria-invalid={noteError ? true : undefined}
              data-testid="agent-change-note"
            />
            <FieldError message={noteError} live />
          </div>
          {conflict && (
            <div className="alert alert-warn" role="alert" data-testid="agent-conflict">
              <div className="stack" style={{ gap: 8 }}>
                <span>{conflict} Your edits are still here, nothing was lost.</span>
                <span>
                  <button
                    type="button"
                    className="btn btn-sm btn-danger"
                    onClick={(e) => submit(e, true)}
                    disabled={busy}
                    data-testid="agent-save-over"
                  >
                    Save over it
                  </button>{" "}
                  <span className="small">or close this and compare in Versions first.</span>
                </span>
              </div>
            </div>
          )}
          <ErrorBlock message={error} testId="agent-save-error" />
        </div>
        <div className="dialog-footer">
          <span className="hint">
            <kbd>Enter</kbd> to save · <kbd>Esc</kbd> to close
          </span>
          <span className="spacer" />
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy || !!conflict} data-testid="agent-save-confirm">
            {busy && <span className="spinner" aria-hidden="true" />}
            {isNew ? "Create version 1" : `Save version ${version}`}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
