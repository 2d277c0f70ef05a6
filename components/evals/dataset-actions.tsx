"use client";
// What can be done with a dataset besides its scoring and items: its details,
// import and export as JSONL, archive (admins). A control a role cannot use
// is hidden, or shown disabled with the reason.
import { useState } from "react";
import { downloadText } from "@/components/agents/download";
import { ConfirmAction, FieldError } from "@/components/ui";
import { errorMessage } from "@/lib/errors";
import { trpc } from "@/lib/trpc";
import { DatasetDialog } from "./dataset-dialog";
import { ImportJsonlDialog } from "./import-jsonl-dialog";
import type { DatasetView } from "./types";

export function ExportButton({
  dataset,
  primary = false,
  testId = "dataset-export",
  onNotice,
}: {
  dataset: DatasetView;
  primary?: boolean;
  testId?: string;
  onNotice(message: string): void;
}) {
  const utils = trpc.useUtils();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function exportJsonl() {
    setBusy(true);
    setError(null);
    try {
      const { filename, jsonl } = await utils.client.evals.exportJsonl.query({ datasetId: dataset.id });
      if (!jsonl) onNotice("No items to export yet.");
      else downloadText(filename, jsonl, "application/x-ndjson");
    } catch (err) {
      setError(`Could not export ${dataset.name}: ${errorMessage(err)}`);
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <button
        type="button"
        className={`btn${primary ? " btn-primary" : ""}`}
        onClick={() => void exportJsonl()}
        disabled={busy}
        title={`Download ${dataset.name}.jsonl: one item a line, ready to import`}
        data-testid={testId}
      >
        {busy && <span className="spinner" aria-hidden="true" />}
        Export JSONL
      </button>
      <FieldError message={error} live />
    </>
  );
}

export function DatasetActions({
  dataset,
  readOnly,
  isAdmin,
  onNotice,
}: {
  dataset: DatasetView;
  readOnly: boolean;
  isAdmin: boolean;
  onNotice(message: string): void;
}) {
  const utils = trpc.useUtils();
  const archive = trpc.evals.archiveDataset.useMutation();
  const unarchive = trpc.evals.unarchiveDataset.useMutation();
  const [editing, setEditing] = useState(false);
  const [importing, setImporting] = useState(false);
  const [confirmArchive, setConfirmArchive] = useState(false);
  const [error, setError] = useState<string | null>(null);

  function changed() {
    void utils.evals.datasets.get.invalidate({ id: dataset.id });
    void utils.evals.datasets.list.invalidate();
  }

  return (
    <div className="row" style={{ flexWrap: "wrap", justifyContent: "flex-end" }}>
      {!readOnly && (
        <button type="button" className="btn" onClick={() => setEditing(true)} data-testid="dataset-edit-details">
          Edit details
        </button>
      )}
      {!readOnly && (
        <button type="button" className="btn" onClick={() => setImporting(true)} data-testid="dataset-import">
          Import JSONL
        </button>
      )}
      {!dataset.builtIn && <ExportButton dataset={dataset} onNotice={onNotice} />}
      {!dataset.builtIn &&
        (isAdmin ? (
          dataset.archived ? (
            <button
              type="button"
              className="btn"
              disabled={unarchive.isPending}
              onClick={() =>
                unarchive.mutate(
                  { id: dataset.id },
                  { onSuccess: () => (changed(), onNotice("Unarchived.")), onError: (err) => setError(errorMessage(err)) },
                )
              }
              data-testid="dataset-unarchive"
            >
              Unarchive
            </button>
          ) : (
            <button type="button" className="btn btn-danger" onClick={() => setConfirmArchive(true)} data-testid="dataset-archive">
              Archive
            </button>
          )
        ) : (
          !readOnly && (
            <button type="button" className="btn" disabled title="Archiving a dataset needs an admin" data-testid="dataset-archive">
              Archive
            </button>
          )
        ))}
      <FieldError message={error} live style={{ flexBasis: "100%", textAlign: "right" }} />
      <DatasetDialog open={editing} dataset={dataset} onClose={() => setEditing(false)} />
      <ImportJsonlDialog open={importing} dataset={dataset} onClose={() => setImporting(false)} onImported={onNotice} />
      <ConfirmAction
        open={confirmArchive}
        title={`Archive ${dataset.name}?`}
        confirmLabel="Archive"
        action={archive}
        onClose={() => {
          setConfirmArchive(false);
          archive.reset();
        }}
        onConfirm={() =>
          archive.mutate(
            { id: dataset.id },
            {
              onSuccess() {
                setConfirmArchive(false);
                changed();
                onNotice("Archived.");
              },
            },
          )
        }
      >
        It leaves the Evals page's list and can&apos;t be changed. Its items and their versions are kept; Unarchive brings it back.
      </ConfirmAction>
    </div>
  );
}
