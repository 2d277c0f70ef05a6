"use client";
// Settings › Models (admins, docs/models.md#settings--models): providers and
// their keys, the models runs may use, routing rules per task class and
// sensitivity pools.
import Link from "next/link";
import { useMemo, useState } from "react";
import { RequireRole } from "@/components/require-role";
import { prefillModel } from "@/lib/model-draft";
import { trpc } from "@/lib/trpc";
import { ModelDialog, type ModelFormState } from "./model-dialog";
import { ModelsSection } from "./models-section";
import { ProvidersSection } from "./providers-section";
import { RoutingSection } from "./routing-section";

export function ModelsPage() {
  return (
    <RequireRole role="admin" title="Models need the admin role" why="Only admins can configure model providers, their keys and routing.">
      {() => <Models />}
    </RequireRole>
  );
}

function Models() {
  const providers = trpc.models.providers.useQuery();
  const models = trpc.models.list.useQuery();
  const [form, setForm] = useState<ModelFormState | null>(null);
  const providerNames = useMemo(() => (providers.data ?? []).map((p) => p.name), [providers.data]);
  const refs = useMemo(() => (models.data ?? []).map((m) => m.ref), [models.data]);
  const configured = useMemo(() => new Set(refs), [refs]);
  return (
    <div className="page">
      <div className="page-header">
        <div className="page-title-block">
          <h1>Models</h1>
          <p>
            The providers and models runs may use, and how a model is chosen for each call. Without any, runs use the built-in{" "}
            <span className="badge badge-scripted">scripted</span> demo model, which calls no model.
          </p>
        </div>
      </div>
      <div className="stack" style={{ gap: 16 }}>
        <ProvidersSection
          configured={configured}
          onAddModel={(provider, modelId) => setForm({ draft: prefillModel(provider, modelId), editing: false })}
        />
        <ModelsSection hasProviders={providerNames.length > 0} onOpen={setForm} />
        <RoutingSection refs={refs} />
        <p className="small muted">
          Every change is recorded in the <Link href="/audit">audit log</Link>. Prices are also in{" "}
          <Link href="/settings/prices">Settings › Prices</Link>.
        </p>
      </div>
      <ModelDialog state={form} providers={providerNames} onClose={() => setForm(null)} />
    </div>
  );
}
