"use client";
// The providers of Settings › Models: where model calls go, with a Test per
// provider whose model list adds models in one click.
import { Fragment, useState } from "react";
import { ConfirmAction, EmptyState, ErrorBlock, ErrorState, SkeletonRows } from "@/components/ui";
import { errorMessage } from "@/lib/errors";
import { PROVIDER_KINDS } from "@/lib/provider-draft";
import { trpc } from "@/lib/trpc";
import { ProviderDialog, type ProviderView } from "./provider-dialog";
import { TestResultView, type TestResult } from "./test-result";
import styles from "./models.module.css";

type Tests = Record<string, { result?: TestResult; error?: string; pending?: boolean }>;

export function ProvidersSection({
  onAddModel,
  configured,
}: {
  onAddModel(provider: string, modelId: string): void;
  configured: ReadonlySet<string>;
}) {
  const providers = trpc.models.providers.useQuery();
  const utils = trpc.useUtils();
  const [editing, setEditing] = useState<{ saved: ProviderView | null } | null>(null);
  const [deleting, setDeleting] = useState<ProviderView | null>(null);
  const [tests, setTests] = useState<Tests>({});
  const tester = trpc.models.testProvider.useMutation();
  const refresh = () =>
    Promise.all([utils.models.providers.invalidate(), utils.models.list.invalidate(), utils.models.options.invalidate()]);
  const toggle = trpc.models.updateProvider.useMutation({ onSuccess: refresh });
  const remove = trpc.models.deleteProvider.useMutation({
    onSuccess: async (_, { name }) => {
      setDeleting(null);
      setTests(({ [name]: _gone, ...rest }) => rest);
      await refresh();
    },
  });

  async function test(name: string) {
    setTests((t) => ({ ...t, [name]: { pending: true } }));
    try {
      const result = await tester.mutateAsync({ name });
      setTests((t) => ({ ...t, [name]: { result } }));
    } catch (err) {
      setTests((t) => ({ ...t, [name]: { error: errorMessage(err) } }));
    }
  }

  const list = providers.data ?? [];
  return (
    <section className="card" aria-labelledby="providers-title" data-testid="providers-section">
      <div className="card-header">
        <h2 id="providers-title">Providers</h2>
        <span className="spacer" />
        <button type="button" className="btn btn-primary btn-sm" onClick={() => setEditing({ saved: null })} data-testid="add-provider">
          + Add provider
        </button>
      </div>
      {providers.isLoading ? (
        <SkeletonRows rows={2} columns={6} />
      ) : providers.isError ? (
        <ErrorState title="Could not load the providers" message={errorMessage(providers.error)} onRetry={() => providers.refetch()} />
      ) : list.length === 0 ? (
        <EmptyState
          icon="⇆"
          title="No providers yet"
          action={
            <button type="button" className="btn btn-primary" onClick={() => setEditing({ saved: null })}>
              Add provider
            </button>
          }
        >
          Runs use the built-in scripted demo model, which calls no model. Add OpenAI, Anthropic or an OpenAI-compatible server (Ollama,
          vLLM, llama.cpp, OpenRouter, LiteLLM) to run agents on real models.
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className={`table ${styles.table}`} data-testid="providers-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Kind</th>
                <th>Base URL</th>
                <th>API key</th>
                <th>Models</th>
                <th>State</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {list.map((p) => {
                const t = tests[p.name];
                return (
                  <Fragment key={p.name}>
                    <tr data-testid="provider-row" data-provider={p.name}>
                      <td>
                        <strong>{p.name}</strong>
                      </td>
                      <td className="small">{PROVIDER_KINDS[p.kind]?.label.replace(/ \(.*\)$/, "") ?? p.kind}</td>
                      <td className="small mono" style={{ wordBreak: "break-all" }}>
                        {p.baseUrl ?? <span className="muted">default</span>}
                      </td>
                      <td className="mono small" data-testid="provider-key">
                        {p.apiKeyMasked ?? <span className="muted">none</span>}
                      </td>
                      <td className="num" data-testid="provider-model-count">
                        {p.modelCount}
                      </td>
                      <td>
                        <span className={styles.badges}>
                          <span className={`badge ${p.enabled ? "badge-ok" : ""}`} data-testid="provider-state">
                            {p.enabled ? "enabled" : "disabled"}
                          </span>
                          {p.selfHosted && <span className="badge badge-outline">self-hosted</span>}
                        </span>
                      </td>
                      <td className={styles.actions}>
                        <button
                          type="button"
                          className="btn btn-sm"
                          onClick={() => void test(p.name)}
                          disabled={t?.pending}
                          data-testid="provider-test"
                          aria-label={`Test ${p.name}`}
                        >
                          {t?.pending && <span className="spinner" aria-hidden="true" />}
                          Test
                        </button>
                        <button
                          type="button"
                          className="btn btn-sm"
                          onClick={() => setEditing({ saved: p })}
                          data-testid="provider-edit"
                          aria-label={`Edit ${p.name}`}
                        >
                          Edit
                        </button>
                        <button
                          type="button"
                          className="btn btn-sm btn-ghost"
                          disabled={toggle.isPending}
                          onClick={() => toggle.mutate({ name: p.name, enabled: !p.enabled })}
                          data-testid="provider-toggle"
                        >
                          {p.enabled ? "Disable" : "Enable"}
                        </button>
                        <button
                          type="button"
                          className="btn btn-sm btn-danger"
                          onClick={() => (remove.reset(), setDeleting(p))}
                          data-testid="provider-delete"
                          aria-label={`Delete ${p.name}`}
                        >
                          Delete
                        </button>
                      </td>
                    </tr>
                    {(t?.result || t?.error) && (
                      <tr className={styles.detailRow}>
                        <td colSpan={7}>
                          {t.result ? (
                            <TestResultView
                              result={t.result}
                              isAdded={(id) => configured.has(`${p.name}/${id}`)}
                              onAdd={(id) => onAddModel(p.name, id)}
                            />
                          ) : (
                            <ErrorBlock message={t.error} />
                          )}
                        </td>
                      </tr>
                    )}
                  </Fragment>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <ErrorBlock error={toggle.error} style={{ margin: 12 }} />
      <ProviderDialog
        open={editing !== null}
        saved={editing?.saved ?? null}
        onClose={() => setEditing(null)}
        onSaved={(name, result) => {
          setEditing(null);
          setTests((t) => ({ ...t, [name]: result ? { result } : {} }));
        }}
      />
      <ConfirmAction
        open={deleting !== null}
        title={`Delete the provider ${deleting?.name ?? ""}?`}
        confirmLabel="Delete provider"
        busyLabel="Deleting…"
        action={remove}
        onConfirm={() => deleting && remove.mutate({ name: deleting.name })}
        onClose={() => setDeleting(null)}
      >
        Its {deleting?.modelCount ?? 0} {deleting?.modelCount === 1 ? "model is" : "models are"} deleted with it, and its key is erased.
        Runs that name them will be refused; routing rules skip them.
      </ConfirmAction>
    </section>
  );
}
