"use client";
// "What would the draft in the editor decide for this call?"
import { useState, type FormEvent } from "react";
import { ErrorBlock, FieldError } from "@/components/ui";
import { trpc } from "@/lib/trpc";
import { TIERS, TOOLS } from "./known-values";
import { VerdictView } from "./verdict-view";
import styles from "./policy.module.css";

function parseArgs(text: string): { ok: true; args: Record<string, unknown> } | { ok: false; message: string } {
  if (!text.trim()) return { ok: true, args: {} };
  try {
    const value: unknown = JSON.parse(text);
    if (value === null || typeof value !== "object" || Array.isArray(value))
      return { ok: false, message: 'Arguments must be a JSON object, like {"command": "ls"}' };
    return { ok: true, args: value as Record<string, unknown> };
  } catch (err) {
    return { ok: false, message: `Arguments are not valid JSON: ${(err as Error).message}` };
  }
}

export function PreviewForm({ source, defaultEmail }: { source: string; defaultEmail: string }) {
  const [actorEmail, setActorEmail] = useState(defaultEmail);
  const [team, setTeam] = useState("");
  const [tool, setTool] = useState("shell");
  const [argsText, setArgsText] = useState('{\n  "command": "git push origin main"\n}');
  const [tier, setTier] = useState("T1");
  const [argsError, setArgsError] = useState<string | null>(null);
  const preview = trpc.policy.preview.useMutation();
  // The result says which draft it was for: editing afterwards marks it as stale.
  const [previewedSource, setPreviewedSource] = useState<string | null>(null);

  function submit(e: FormEvent) {
    e.preventDefault();
    const args = parseArgs(argsText);
    if (!args.ok) {
      setArgsError(args.message);
      return;
    }
    setArgsError(null);
    setPreviewedSource(source);
    preview.mutate({
      source,
      sample: {
        actorEmail: actorEmail.trim() || undefined,
        team: team.trim() || undefined,
        tool: tool.trim(),
        args: args.args,
        tier: tier.trim(),
      },
    });
  }

  return (
    <form className="card-body stack" onSubmit={submit} aria-label="Preview a tool call" data-testid="policy-preview">
      <p className="hint" style={{ margin: 0 }}>
        Try a tool call against the draft, as the rules or the YAML show it (saved or not).
      </p>
      <div className={styles.formGrid}>
        <div className="field">
          <label htmlFor="preview-actor">Actor email</label>
          <input
            id="preview-actor"
            className="input"
            type="email"
            value={actorEmail}
            onChange={(e) => setActorEmail(e.target.value)}
            placeholder="someone@example.com"
            data-testid="preview-actor"
          />
        </div>
        <div className="field">
          <label htmlFor="preview-team">Team</label>
          <input
            id="preview-team"
            className="input"
            value={team}
            onChange={(e) => setTeam(e.target.value)}
            placeholder="none"
            data-testid="preview-team"
          />
        </div>
        <div className="field">
          <label htmlFor="preview-tool">Tool</label>
          <input
            id="preview-tool"
            className="input"
            list="preview-tools"
            value={tool}
            onChange={(e) => setTool(e.target.value)}
            required
            data-testid="preview-tool"
          />
          <datalist id="preview-tools">
            {TOOLS.map((t) => (
              <option key={t} value={t} />
            ))}
          </datalist>
        </div>
        <div className="field">
          <label htmlFor="preview-tier">Tier</label>
          <input
            id="preview-tier"
            className="input"
            list="preview-tiers"
            value={tier}
            onChange={(e) => setTier(e.target.value)}
            required
            data-testid="preview-tier"
          />
          <datalist id="preview-tiers">
            {TIERS.map((t) => (
              <option key={t} value={t} />
            ))}
          </datalist>
        </div>
      </div>
      <div className="field">
        <label htmlFor="preview-args">Arguments (JSON)</label>
        <textarea
          id="preview-args"
          className="textarea mono"
          rows={4}
          value={argsText}
          onChange={(e) => setArgsText(e.target.value)}
          aria-invalid={argsError ? true : undefined}
          aria-describedby={argsError ? "preview-args-error" : undefined}
          spellCheck={false}
          data-testid="preview-args"
        />
        <FieldError id="preview-args-error" message={argsError} live block />
      </div>
      <div className="row">
        <button type="submit" className="btn" disabled={preview.isPending} data-testid="preview-submit">
          {preview.isPending && <span className="spinner" aria-hidden="true" />}
          Preview
        </button>
        {preview.data && previewedSource !== source && <span className="small muted">The draft changed since; preview again.</span>}
      </div>
      {preview.isError && <ErrorBlock error={preview.error} testId="preview-error" />}
      {preview.data && !preview.isError && <VerdictView verdict={preview.data} />}
    </form>
  );
}
