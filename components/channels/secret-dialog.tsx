"use client";
// The signing secret, shown once (after adding a webhook or rotating its
// secret): a monospace box with Copy, and a sentence that it will not be
// shown again. It closes only once the admin says they stored it.
import { useId, useState, type ReactNode } from "react";
import { Dialog } from "@/components/ui";
import styles from "./channels.module.css";

export function SecretDialog({ secret, title, note, onDone }: { secret: string | null; title: string; note?: ReactNode; onDone(): void }) {
  return (
    <Dialog open={secret !== null} onClose={() => undefined} labelledBy="webhook-secret-title" testId="webhook-secret-dialog">
      {secret !== null && <SecretBody secret={secret} title={title} note={note} onDone={onDone} />}
    </Dialog>
  );
}

function SecretBody({ secret, title, note, onDone }: { secret: string; title: string; note?: ReactNode; onDone(): void }) {
  const id = useId();
  const [stored, setStored] = useState(false);
  const [copied, setCopied] = useState<"yes" | "failed" | null>(null);
  async function copy() {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied("yes");
    } catch {
      setCopied("failed");
    }
  }
  return (
    <div className="dialog-form">
      <div className="dialog-header">
        <div>
          <h2 id="webhook-secret-title">{title}</h2>
          <p>Your receiver checks each request&apos;s signature with this secret (Standard Webhooks, HMAC-SHA256).</p>
        </div>
      </div>
      <div className="dialog-body">
        <div className={styles.secretRow}>
          <code className={styles.secretBox} data-testid="webhook-secret" aria-label="Signing secret">
            {secret}
          </code>
          <button type="button" className="btn" onClick={copy} data-testid="webhook-secret-copy">
            {copied === "yes" ? "Copied" : copied === "failed" ? "Select and copy" : "Copy"}
          </button>
        </div>
        <div className="alert alert-warn" data-testid="webhook-secret-note">
          <strong>Store it now: it will not be shown again.</strong> Rein keeps it encrypted and cannot show it to anyone later; if it is
          lost, rotate the secret.
        </div>
        {note}
        <label className="row" style={{ gap: 8 }} htmlFor={`${id}-stored`}>
          <input
            id={`${id}-stored`}
            type="checkbox"
            className="checkbox"
            checked={stored}
            onChange={(e) => setStored(e.target.checked)}
            data-testid="webhook-secret-ack"
          />
          I have stored the secret
        </label>
      </div>
      <div className="dialog-footer">
        <span className="spacer" />
        <button type="button" className="btn btn-primary" disabled={!stored} onClick={onDone} data-testid="webhook-secret-done">
          Done
        </button>
      </div>
    </div>
  );
}
