"use client";
// Import JSONL: a file or pasted text, one item a line. The server checks
// every line first; a file with any bad line imports nothing, and each
// problem is listed with its line number.
import { useId, useRef, useState, type FormEvent } from "react";
import { Dialog, ErrorBlock, FieldError } from "@/components/ui";
import { errorMessage } from "@/lib/errors";
import { issuesOf } from "@/lib/field-errors";
import { pluralize } from "@/lib/format";
import { MAX_JSONL_BYTES } from "@/lib/limits";
import { trpc } from "@/lib/trpc";
import type { DatasetView } from "./types";
import styles from "./evals.module.css";

const PLACEHOLDER =
  '{"key": "fizzbuzz", "goal": "Write FizzBuzz with tests", "agent": "demo-coder", "expected": {"outcome": "succeeded"}}\n{"goal": "Explain the README", "expected": {"text": "install"}}';

export function ImportJsonlDialog({
  open,
  dataset,
  onClose,
  onImported,
}: {
  open: boolean;
  dataset: DatasetView;
  onClose(): void;
  onImported(message: string): void;
}) {
  const titleId = useId();
  const utils = trpc.useUtils();
  const importJsonl = trpc.evals.importJsonl.useMutation();
  const [jsonl, setJsonl] = useState("");
  const [fileError, setFileError] = useState<string | null>(null);
  const fileRef = useRef<HTMLInputElement>(null);
  const issues = issuesOf(importJsonl.error);

  function close() {
    importJsonl.reset();
    setFileError(null);
    onClose();
  }

  async function readFile(file: File | undefined) {
    setFileError(null);
    importJsonl.reset();
    if (!file) return;
    if (file.size > MAX_JSONL_BYTES) {
      setFileError(`${file.name} is larger than 5 MB; split it in parts.`);
      return;
    }
    setJsonl(await file.text());
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!jsonl.trim() || importJsonl.isPending) return;
    importJsonl.mutate(
      { datasetId: dataset.id, jsonl },
      {
        onSuccess(r) {
          void utils.evals.items.invalidate({ datasetId: dataset.id });
          void utils.evals.datasets.get.invalidate({ id: dataset.id });
          void utils.evals.datasets.list.invalidate();
          onImported(`Imported: ${pluralize(r.added, "item")} added, ${r.edited} changed, ${r.unchanged} unchanged.`);
          setJsonl("");
          close();
        },
      },
    );
  }

  return (
    <Dialog open={open} onClose={close} labelledBy={titleId} testId="dataset-import-dialog">
      <form className="dialog-form" onSubmit={submit} noValidate>
        <div className="dialog-header">
          <div>
            <h2 id={titleId}>Import items into {dataset.name}</h2>
            <p>
              One JSON object a line: {"{ key?, goal, agent?, scenario?, expected? }"}. A line whose key the dataset has saves that
              item&apos;s next version; other lines add items.
            </p>
          </div>
        </div>
        <div className="dialog-body">
          <div className="row">
            <input
              ref={fileRef}
              type="file"
              accept=".jsonl,.ndjson,.json,application/x-ndjson,application/jsonl,text/plain"
              className="sr-only"
              onChange={(e) => void readFile(e.target.files?.[0])}
              data-testid="dataset-import-file"
              aria-label="JSONL file"
            />
            <button type="button" className="btn" onClick={() => fileRef.current?.click()}>
              Choose a file…
            </button>
            <span className="hint">or paste it below (at most 5 MB and 10,000 lines)</span>
          </div>
          <FieldError message={fileError} live />
          <div className="field">
            <label htmlFor="dataset-import-jsonl">JSONL</label>
            <textarea
              id="dataset-import-jsonl"
              className="textarea mono"
              rows={12}
              value={jsonl}
              spellCheck={false}
              wrap="off"
              data-autofocus
              onChange={(e) => {
                setJsonl(e.target.value);
                if (importJsonl.error) importJsonl.reset();
              }}
              placeholder={PLACEHOLDER}
              data-testid="dataset-import-jsonl"
            />
          </div>
          {importJsonl.error && (
            <ErrorBlock testId="dataset-import-error">
              {issues?.length ? (
                <div>
                  <strong>{issues.length === 1 ? "1 problem" : `${issues.length} problems`}; nothing was imported:</strong>
                  <ul className={styles.lineProblems}>
                    {issues.map((i, n) => (
                      <li key={n} data-line={i.path}>
                        {i.message}
                      </li>
                    ))}
                  </ul>
                </div>
              ) : (
                errorMessage(importJsonl.error)
              )}
            </ErrorBlock>
          )}
        </div>
        <div className="dialog-footer">
          <span className="spacer" />
          <button type="button" className="btn" onClick={close}>
            Cancel
          </button>
          <button
            type="submit"
            className="btn btn-primary"
            disabled={!jsonl.trim() || importJsonl.isPending}
            data-testid="dataset-import-submit"
          >
            {importJsonl.isPending && <span className="spinner" aria-hidden="true" />}
            Import
          </button>
        </div>
      </form>
    </Dialog>
  );
}
