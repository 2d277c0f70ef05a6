"use client";
// New run › Secrets: which stored secrets the run's tools get, besides those
// its agent spec lists. Operators see names only; values never reach the browser.
import Link from "next/link";
import { FieldError } from "@/components/ui";
import { errorMessage } from "@/lib/errors";
import { trpc } from "@/lib/trpc";

export function NewRunSecrets({ selected, onChange }: { selected: string[]; onChange(next: string[]): void }) {
  const names = trpc.secrets.names.useQuery(undefined, { staleTime: 30_000 });
  const toggle = (name: string, on: boolean) => onChange(on ? [...selected, name] : selected.filter((n) => n !== name));
  return (
    <details className="disclosure" data-testid="secrets-section">
      <summary data-testid="secrets-toggle">Advanced: secrets for its tools{selected.length ? ` (${selected.length} chosen)` : ""}</summary>
      {names.isLoading ? (
        <p className="hint">Loading secrets…</p>
      ) : names.error ? (
        <FieldError message={<>Could not load the secrets: {errorMessage(names.error)}</>} live block />
      ) : !names.data?.length ? (
        <p className="hint" data-testid="secrets-empty">
          No secrets yet. An admin adds them in <Link href="/settings/secrets">Settings › Secrets</Link>.
        </p>
      ) : (
        <div className="stack" style={{ gap: 6 }}>
          {names.data.map((s) => (
            <label key={s.name} className="checkbox" data-testid="secret-option">
              <input type="checkbox" checked={selected.includes(s.name)} onChange={(e) => toggle(s.name, e.target.checked)} />
              <span className="mono">{s.name}</span>
              <span className="hint mono">${s.env}</span>
            </label>
          ))}
          <span className="hint">
            Its shell sees each as a variable, for one command at a time; the values are redacted from everything the run records.
          </span>
        </div>
      )}
    </details>
  );
}
