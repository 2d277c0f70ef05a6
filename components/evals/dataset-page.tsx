"use client";
// A dataset (/evals/datasets/ID): who sees it, its scoring and its items.
// Operators of its team (admins for everyone's) change it; admins archive it;
// built-in datasets are read-only, exported to be made your own.
import Link from "next/link";
import { useEffect, useState } from "react";
import { PageShell, Skeleton } from "@/components/ui";
import { useRoleIn } from "@/lib/access";
import { datasetReadOnlyReason } from "@/lib/dataset-draft";
import { formatDateTime, formatRelative } from "@/lib/format";
import { trpc } from "@/lib/trpc";
import { DatasetActions, ExportButton } from "./dataset-actions";
import { ItemsCard } from "./items-card";
import { ScoringCard } from "./scoring-card";
import type { DatasetView } from "./types";
import styles from "./evals.module.css";
import { ExperimentsSection } from "./experiments-section";

export function DatasetPage({ id }: { id: string }) {
  const dataset = trpc.evals.datasets.get.useQuery({ id }, { refetchOnWindowFocus: false });
  return (
    <PageShell
      query={dataset}
      loading={
        <div className="page page-wide" aria-busy="true">
          <div className="stack">
            <Skeleton width={120} />
            <Skeleton width={280} height={26} />
            <Skeleton width="60%" />
            <Skeleton height={180} />
            <Skeleton height={240} />
          </div>
        </div>
      }
      failed="Could not load the dataset"
      notFound={{ title: "Dataset not found", message: "There is no such dataset, or it belongs to a team you are not in." }}
      frame={(problem) => (
        <div className="page">
          <div className="card" data-testid="dataset-not-found">
            {problem}
            <div style={{ textAlign: "center", paddingBottom: 32 }}>
              <Link href="/evals">← Back to Evals</Link>
            </div>
          </div>
        </div>
      )}
    >
      {(data) => <Dataset dataset={data} />}
    </PageShell>
  );
}

function Dataset({ dataset }: { dataset: DatasetView }) {
  const { role, isLoading } = useRoleIn(dataset.teamId);
  const readOnlyReason = isLoading ? "Checking what you may change…" : datasetReadOnlyReason(dataset, role);
  const [notice, setNotice] = useState<string | null>(null);
  useEffect(() => {
    if (!notice) return;
    const t = setTimeout(() => setNotice(null), 5000);
    return () => clearTimeout(t);
  }, [notice]);

  return (
    <div className="page page-wide" data-testid="dataset-page" data-dataset={dataset.name}>
      <div className="page-header">
        <div className="page-title-block" style={{ flex: 1, minWidth: 0 }}>
          <Link href="/evals" className="small">
            ← Evals
          </Link>
          <div className="row" style={{ flexWrap: "wrap" }}>
            <h1 style={{ fontFamily: "var(--mono)" }} data-testid="dataset-title">
              {dataset.name}
            </h1>
            {dataset.builtIn && <span className="badge badge-role">Built-in</span>}
            {dataset.archived && (
              <span className="badge" data-testid="dataset-archived">
                Archived
              </span>
            )}
            <span className="badge badge-outline" data-testid="dataset-team">
              {dataset.team ? `Team ${dataset.team.name}` : "Everyone"}
            </span>
            {notice && (
              <span className="saved-note" role="status" data-testid="dataset-notice">
                {notice}
              </span>
            )}
          </div>
          <p className="small">
            {dataset.description || "No description"}
            {" · "}
            <span title={formatDateTime(dataset.updatedAt)}>updated {formatRelative(dataset.updatedAt)}</span>
            {dataset.createdBy ? ` · created by ${dataset.createdBy}` : ""}
          </p>
        </div>
        <DatasetActions dataset={dataset} readOnly={readOnlyReason !== null} isAdmin={role === "admin"} onNotice={setNotice} />
      </div>

      {readOnlyReason && !isLoading && (
        <div
          className={`alert ${dataset.builtIn ? "alert-info" : "alert-warn"} ${styles.readOnlyNote}`}
          role="status"
          data-testid="dataset-read-only"
        >
          <span style={{ flex: 1 }}>{readOnlyReason}</span>
          {dataset.builtIn && <ExportButton dataset={dataset} primary onNotice={setNotice} testId="dataset-export-to-copy" />}
        </div>
      )}

      <div className={styles.grid}>
        <ScoringCard
          key={JSON.stringify(dataset.scoring)}
          dataset={dataset}
          readOnly={readOnlyReason !== null}
          onSaved={() => setNotice("Scoring saved.")}
        />
        <ItemsCard dataset={dataset} readOnly={readOnlyReason !== null} readOnlyReason={readOnlyReason} />
        <ExperimentsSection datasetId={dataset.id} />
      </div>
    </div>
  );
}
