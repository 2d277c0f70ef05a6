"use client";
import { Dialog } from "@/components/dialog";
import styles from "./inbox.module.css";

const KEYS: [string[], string][] = [
  [["j", "↓"], "Next request"],
  [["k", "↑"], "Previous request"],
  [["a"], "Approve (approve now for a veto; send the choice or answer)"],
  [["r"], "Reject, veto or decline: focuses the comment first"],
  [["Ctrl", "Enter"], "In the comment after r: reject with it"],
  [["Esc"], "Leave the comment without rejecting"],
  [["g", "i"], "Go to the inbox from any page"],
  [["?"], "Show these shortcuts"],
];

export function ShortcutsDialog({ open, onClose }: { open: boolean; onClose(): void }) {
  return (
    <Dialog open={open} onClose={onClose} size="sm" labelledBy="inbox-shortcuts-title" testId="shortcuts-dialog">
      <div className="dialog-form">
        <div className="dialog-header">
          <h2 id="inbox-shortcuts-title">Keyboard shortcuts</h2>
        </div>
        <div className="dialog-body">
          <dl className={styles.keys}>
            {KEYS.map(([keys, what]) => (
              <div key={what} style={{ display: "contents" }}>
                <dt>
                  {keys.map((k, i) => (
                    <kbd key={i}>{k}</kbd>
                  ))}
                </dt>
                <dd>{what}</dd>
              </div>
            ))}
          </dl>
          <p className="hint">Shortcuts are off while you type in a field.</p>
        </div>
        <div className="dialog-footer">
          <span className="spacer" />
          <button type="button" className="btn btn-primary" onClick={onClose} autoFocus>
            Close
          </button>
        </div>
      </div>
    </Dialog>
  );
}
