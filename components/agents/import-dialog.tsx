"use client";
// Import YAML: a file or pasted text; it creates the agent, or saves a new
// version of an existing one. Each problem is shown with the field it is about.
import { useRouter } from "next/navigation";
import { useId, useRef, useState, type FormEvent } from "react";
import { Dialog, ErrorBlock, FieldError } from "@/components/ui";
import { FIELD_LABELS, fieldOf } from "@/lib/agent-draft";
import { errorMessage } from "@/lib/errors";
import { issuesOf } from "@/lib/field-errors";
import { trpc } from "@/lib/trpc";

const MAX_FILE_BYTES = 1_000_000;

export function ImportDialog({ open, onClose }: { open: boolean; onClose(): void }) {
  const titleId = useId();
  const router = useRouter();
  const utils = trpc.useUtils();
  const importYaml = trpc.agents.importYaml.useMutation();
  const [yaml, setYaml] = useState("");
  const [note, setNote] = useState("");
  const [fileError, setFileError] = useState<string | null>(null);
  const fileRef = useRef<HTMLInputElement>(null);

  const issues = issuesOf(importYaml.error);

  function close() {
    importYaml.reset();
    setFileError(null);
    onClose();
  }

  async function readFile(file: File | undefined) {
    setFileError(null);
    importYaml.reset();
    if (!file) return;
    if (file.size > MAX_FILE_BYTES) {
      setFileError(`${file.name} is larger than 1 MB; an agent spec is a few kilobytes.`);
      return;
    }
    setYaml(await file.text());
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!yaml.trim() || importYaml.isPending) return;
    importYaml.mutate(
      { yaml, changeNote: note.trim() || undefined },
      {
        onSuccess(agent) {
          utils.agents.get.setData({ name: agent.name }, agent);
          void utils.agents.list.invalidate();
          void utils.agents.versions.invalidate({ name: agent.name });
          setYaml("");
          setNote("");
          close();
          router.push(`/agents/${encodeURIComponent(agent.name)}`);
        },
      },
    );
  }

  return (
    <Dialog open={open} onClose={close} labelledBy={titleId} testId="agent-import-dialog">
      <form className="dialog-form" onSubmit={submit} noValidate>
        <div className="dialog-header">
          <div>
            <h2 id={titleId}>Import an agent from YAML</h2>
            <p>A file exported from Rein, or pasted. An agent of the same name gets a new version; otherwise it is created.</p>
          </div>
        </div>
        <div className="dialog-body">
          <div className="row">
            <input
              ref={fileRef}
              type="file"
              accept=".yaml,.yml,text/yaml,application/yaml"
              className="sr-only"
              onChange={(e) => void readFile(e.target.files?.[0])}
              data-testid="agent-import-file"
              aria-label="YAML file"
            />
            <button type="button" className="btn" onClick={() => fileRef.current?.click()}>
              Choose a file…
            </button>
            <span className="hint">or paste it below</span>
          </div>
          <FieldError message={fileError} live />
          <div className="field">
            <label htmlFor="agent-import-yaml">YAML</label>
            <textarea
              id="agent-import-yaml"
              className="textarea mono"
              rows={12}
              value={yaml}
              spellCheck={false}
              onChange={(e) => {
                setYaml(e.target.value);
                if (importYaml.error) importYaml.reset();
              }}
              placeholder={
                "name: release-notes-writer\ndescription: Writes release notes\ninstructions: |\n  You write release notes…\nmodel: scripted/demo-coder\ntaskClass: plan\ntools: [read_file, write_file]"
              }
              data-testid="agent-import-yaml"
            />
          </div>
          <div className="field">
            <label htmlFor="agent-import-note">Change note (optional)</label>
            <input
              id="agent-import-note"
              className="input"
              value={note}
              maxLength={500}
              onChange={(e) => setNote(e.target.value)}
              placeholder="Imported from …"
            />
          </div>
          {importYaml.error && (
            <ErrorBlock testId="agent-import-error">
              {issues?.length ? (
                <div>
                  <strong>{issues.length === 1 ? "1 problem" : `${issues.length} problems`}; nothing was imported:</strong>
                  <ul style={{ margin: "4px 0 0", paddingLeft: 18 }}>
                    {issues.map((i, n) => {
                      const field = fieldOf(i.path);
                      return (
                        <li key={n} data-field={i.path}>
                          {field ? <strong>{FIELD_LABELS[field]}</strong> : i.path ? <code>{i.path}</code> : null}
                          {field || i.path ? ": " : ""}
                          {i.message}
                        </li>
                      );
                    })}
                  </ul>
                </div>
              ) : (
                errorMessage(importYaml.error)
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
            disabled={!yaml.trim() || importYaml.isPending}
            data-testid="agent-import-submit"
          >
            {importYaml.isPending && <span className="spinner" aria-hidden="true" />}
            Import
          </button>
        </div>
      </form>
    </Dialog>
  );
}
