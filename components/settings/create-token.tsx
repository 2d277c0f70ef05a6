"use client";
// Creates an API token and shows it exactly once.
import { useEffect, useState, type FormEvent } from "react";
import { ErrorBlock } from "@/components/ui";
import { formatDateTime } from "@/lib/format";
import { trpc, type RouterOutputs } from "@/lib/trpc";

type Created = RouterOutputs["identity"]["createToken"];

/** Copies `value` to the clipboard, and says whether it did. */
export function CopyButton({ value, testId = "copy-token", label = "Copy" }: { value: string; testId?: string; label?: string }) {
  const [copied, setCopied] = useState<"yes" | "failed" | null>(null);
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setCopied("yes");
    } catch {
      setCopied("failed");
    }
    setTimeout(() => setCopied(null), 2000);
  }
  return (
    <button
      type="button"
      className="btn"
      onClick={copy}
      data-testid={testId}
      aria-label={copied ? undefined : label}
      title={label === "Copy" ? undefined : label}
    >
      {copied === "yes" ? "Copied" : copied === "failed" ? "Select and copy" : "Copy"}
    </button>
  );
}

export function CopyField({ value, testId, label = "New token" }: { value: string; testId?: string; label?: string }) {
  return (
    <div className="token-value">
      <input className="input" readOnly value={value} onFocus={(e) => e.target.select()} aria-label={label} data-testid={testId} />
      <CopyButton value={value} />
    </div>
  );
}

export function CreateToken() {
  const utils = trpc.useUtils();
  const [name, setName] = useState("");
  const [days, setDays] = useState("");
  const [created, setCreated] = useState<Created | null>(null);
  const [origin, setOrigin] = useState("http://localhost:3000");
  useEffect(() => setOrigin(window.location.origin), []);
  const create = trpc.identity.createToken.useMutation({
    onSuccess: (token) => {
      setCreated(token);
      setName("");
      setDays("");
      void utils.identity.tokens.invalidate();
    },
  });

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (!name.trim()) return;
    create.mutate({ name: name.trim(), expiresInDays: days.trim() ? Number(days) : undefined });
  }

  return (
    <div className="card card-body stack">
      <h2>Create a token</h2>
      {created && (
        <div className="token-reveal" data-testid="new-token">
          <div>
            <strong>Token &quot;{created.name}&quot; created.</strong> Copy it now: it is shown only this once.
            {created.expiresAt && <span className="muted"> It expires {formatDateTime(created.expiresAt)}.</span>}
          </div>
          <CopyField value={created.token} testId="new-token-value" />
          <div className="small">
            Try it:
            <pre
              className="code-block"
              style={{ marginTop: 6 }}
            >{`curl -H "Authorization: Bearer ${created.token}" ${origin}/api/v1/runs`}</pre>
          </div>
          <div>
            <button type="button" className="btn btn-sm" onClick={() => setCreated(null)}>
              I have copied it
            </button>
          </div>
        </div>
      )}
      <form className="form-inline" onSubmit={onSubmit}>
        <div className="field" style={{ flex: 1, minWidth: 220 }}>
          <label htmlFor="token-name">Name</label>
          <input
            id="token-name"
            className="input"
            placeholder="e.g. CI pipeline"
            maxLength={100}
            value={name}
            onChange={(e) => setName(e.target.value)}
            data-testid="token-name"
          />
        </div>
        <div className="field" style={{ width: 170 }}>
          <label htmlFor="token-days">Expires after (days)</label>
          <input
            id="token-days"
            className="input"
            type="number"
            min={1}
            max={3650}
            placeholder="never"
            value={days}
            onChange={(e) => setDays(e.target.value)}
            data-testid="token-days"
          />
        </div>
        <button type="submit" className="btn btn-primary" disabled={!name.trim() || create.isPending} data-testid="create-token">
          {create.isPending && <span className="spinner" aria-hidden="true" />}
          Create token
        </button>
      </form>
      <ErrorBlock error={create.error} />
      <p className="hint">
        Send it as <code>Authorization: Bearer &lt;token&gt;</code>, e.g.{" "}
        <code>curl -H &quot;Authorization: Bearer &lt;token&gt;&quot; {origin}/api/v1/runs</code>
      </p>
    </div>
  );
}
