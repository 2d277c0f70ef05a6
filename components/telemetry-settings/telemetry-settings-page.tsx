"use client";
// Settings › Telemetry (admins): export spans to an OpenTelemetry collector
// over OTLP/HTTP. How long spans are kept is set in Settings › Data.
import { useEffect, useState, type FormEvent } from "react";
import { RequireRole } from "@/components/require-role";
import Link from "next/link";
import { PageShell, SkeletonRows } from "@/components/ui";
import { errorMessage } from "@/lib/errors";
import { trpc, type RouterOutputs } from "@/lib/trpc";

interface HeaderRow {
  name: string;
  value: string;
  /** The saved value, masked; an empty value keeps it (as a provider's API key). */
  savedMasked?: string;
}

export function TelemetrySettingsPage() {
  return (
    <RequireRole role="admin" title="Telemetry settings need the admin role" why="Only admins can change where traces are exported.">
      {() => <TelemetrySettings />}
    </RequireRole>
  );
}

function TelemetrySettings() {
  const settings = trpc.telemetrySettings.get.useQuery();
  return (
    <div className="page">
      <div className="page-header">
        <div className="page-title-block">
          <h1>Telemetry</h1>
          <p>
            Every run is a trace in Rein. Send the same spans to any OpenTelemetry collector. How long spans and their inputs and outputs
            are kept is set in <Link href="/settings/data">Settings › Data</Link>.
          </p>
        </div>
      </div>
      <PageShell query={settings} loading={<SkeletonRows rows={4} columns={2} />} failed="Could not load the telemetry settings">
        {(data) => (
          <div className="stack" style={{ gap: 16 }}>
            <OtlpForm current={data.otlp} />
          </div>
        )}
      </PageShell>
    </div>
  );
}

type Current = RouterOutputs["telemetrySettings"]["get"]["otlp"];

function OtlpForm({ current }: { current: Current }) {
  const utils = trpc.useUtils();
  const [url, setUrl] = useState(current?.url ?? "");
  const savedRows = (): HeaderRow[] =>
    current?.source === "settings" ? current.headers.map((h) => ({ name: h.name, value: "", savedMasked: h.masked })) : [];
  const [headers, setHeaders] = useState<HeaderRow[]>(savedRows);
  const [result, setResult] = useState<{ ok: boolean; message: string } | null>(null);
  useEffect(() => setUrl(current?.url ?? ""), [current?.url]);
  // After a save the rows show what is stored now; values are never sent back, only masked.
  const savedKey = JSON.stringify(current?.headers ?? []);
  // eslint-disable-next-line react-hooks/exhaustive-deps -- keyed on the saved content: a refetch of the same headers keeps the rows
  useEffect(() => setHeaders(savedRows()), [savedKey, current?.source]);
  const save = trpc.telemetrySettings.setOtlp.useMutation({ onSuccess: () => utils.telemetrySettings.get.invalidate() });
  const test = trpc.telemetrySettings.testOtlp.useMutation({
    onSuccess: setResult,
    onError: (e) => setResult({ ok: false, message: errorMessage(e) }),
  });
  // A saved header whose value was not retyped is sent as null: the server keeps its value.
  const value = () => ({
    url: url.trim(),
    headers: Object.fromEntries(
      headers.filter((h) => h.name.trim()).map((h) => [h.name.trim(), h.savedMasked && h.value === "" ? null : h.value]),
    ),
  });

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    setResult(null);
    save.mutate({ otlp: value() });
  }

  return (
    <form className="card card-body stack" onSubmit={onSubmit} data-testid="otlp-form">
      <h2>Export to an OpenTelemetry collector (OTLP/HTTP)</h2>
      <p className="muted small">
        {current
          ? `Spans are exported to ${current.url}${current.source === "environment" ? " (from REIN_OTLP_ENDPOINT; saving here overrides it)" : ""}.`
          : "Spans are not exported. Set the collector's traces endpoint, e.g. http://localhost:4318/v1/traces."}
        {current?.headers.length ? ` Headers: ${current.headers.map((h) => `${h.name}: ${h.masked}`).join(", ")}.` : ""}
      </p>
      <div className="field">
        <label htmlFor="otlp-url">Endpoint</label>
        <input
          id="otlp-url"
          className="input"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          placeholder="http://localhost:4318/v1/traces"
          data-testid="otlp-url"
        />
      </div>
      <div className="field">
        <span className="label">
          Headers{" "}
          {headers.some((h) => h.savedMasked) ? (
            <span className="muted">(values are stored encrypted; leave one empty to keep it, type a new one to replace it)</span>
          ) : null}
        </span>
        {headers.map((h, i) => (
          <div key={i} className="row" style={{ gap: 8 }} data-testid="otlp-header">
            <input
              className="input"
              aria-label="Header name"
              placeholder="authorization"
              value={h.name}
              readOnly={!!h.savedMasked}
              title={h.savedMasked ? "Remove the header and add it again to rename it" : undefined}
              onChange={(e) => setHeaders(headers.map((x, j) => (j === i ? { ...x, name: e.target.value } : x)))}
            />
            <input
              className="input"
              aria-label="Header value"
              type="password"
              autoComplete="off"
              placeholder={h.savedMasked ? `Leave empty to keep ${h.savedMasked}` : "value"}
              value={h.value}
              onChange={(e) => setHeaders(headers.map((x, j) => (j === i ? { ...x, value: e.target.value } : x)))}
            />
            <button type="button" className="btn" onClick={() => setHeaders(headers.filter((_, j) => j !== i))} aria-label="Remove header">
              ✕
            </button>
          </div>
        ))}
        <div>
          <button type="button" className="btn" onClick={() => setHeaders([...headers, { name: "", value: "" }])}>
            Add header
          </button>
        </div>
      </div>
      {(save.error || result) && (
        <div className={save.error || !result?.ok ? "field-error" : "muted"} role="status" data-testid="otlp-result">
          {save.error ? errorMessage(save.error) : result?.message}
        </div>
      )}
      {save.isSuccess && !save.isPending && !result && <div className="muted small">Saved. New spans go to the collector.</div>}
      <div className="row" style={{ gap: 8 }}>
        <button type="submit" className="btn btn-primary" disabled={!url.trim() || save.isPending}>
          {save.isPending ? "Saving…" : "Save"}
        </button>
        <button
          type="button"
          className="btn"
          disabled={!url.trim() || test.isPending}
          onClick={() => {
            // The last answer is stale once a new test starts.
            setResult(null);
            test.mutate(value());
          }}
          data-testid="otlp-test"
        >
          {test.isPending && <span className="spinner" aria-hidden="true" />}
          {test.isPending ? "Testing…" : "Test"}
        </button>
        {current?.source === "settings" && (
          <button type="button" className="btn" onClick={() => save.mutate({ otlp: null })}>
            Stop exporting
          </button>
        )}
      </div>
    </form>
  );
}
