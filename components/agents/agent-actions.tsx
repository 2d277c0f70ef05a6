"use client";
// What can be done with a saved agent besides editing it: copy it, download
// it as YAML, archive or unarchive it. Shared by the list's rows and the editor.
import { useState } from "react";
import { ConfirmAction, FieldError } from "@/components/ui";
import { errorMessage } from "@/lib/errors";
import { trpc } from "@/lib/trpc";
import { CopyButton } from "./copy-dialog";
import { downloadText } from "./download";

interface ActionTarget {
  name: string;
  builtIn: boolean;
  archived: boolean;
}

export function AgentActions({
  agent,
  canOperate,
  small = false,
  onArchived,
}: {
  agent: ActionTarget;
  canOperate: boolean;
  small?: boolean;
  onArchived?(archived: boolean): void;
}) {
  const utils = trpc.useUtils();
  const archive = trpc.agents.archive.useMutation();
  const unarchive = trpc.agents.unarchive.useMutation();
  const [confirmArchive, setConfirmArchive] = useState(false);
  const [exporting, setExporting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const btn = `btn${small ? " btn-sm" : ""}`;

  async function exportYaml() {
    setExporting(true);
    setError(null);
    try {
      const { filename, yaml } = await utils.client.agents.exportYaml.query({ name: agent.name });
      downloadText(filename, yaml);
    } catch (err) {
      setError(`Could not export ${agent.name}: ${errorMessage(err)}`);
    } finally {
      setExporting(false);
    }
  }

  function changed(archived: boolean) {
    void utils.agents.list.invalidate();
    void utils.agents.get.invalidate({ name: agent.name });
    onArchived?.(archived);
  }

  return (
    <>
      {canOperate && <CopyButton name={agent.name} small={small} testId={`agent-copy-${agent.name}`} />}
      <button
        type="button"
        className={btn}
        onClick={() => void exportYaml()}
        disabled={exporting}
        title={`Download ${agent.name}.yaml`}
        data-testid={`agent-export-${agent.name}`}
      >
        {exporting && <span className="spinner" aria-hidden="true" />}
        {small ? "Export" : "Export YAML"}
      </button>
      {canOperate &&
        !agent.builtIn &&
        (agent.archived ? (
          <button
            type="button"
            className={btn}
            disabled={unarchive.isPending}
            onClick={() =>
              unarchive.mutate({ name: agent.name }, { onSuccess: () => changed(false), onError: (err) => setError(errorMessage(err)) })
            }
            data-testid={`agent-unarchive-${agent.name}`}
          >
            Unarchive
          </button>
        ) : (
          <button
            type="button"
            className={`${btn} btn-danger`}
            onClick={() => setConfirmArchive(true)}
            data-testid={`agent-archive-${agent.name}`}
          >
            Archive
          </button>
        ))}
      <FieldError message={error} live style={{ flexBasis: "100%", textAlign: "right" }} />
      <ConfirmAction
        open={confirmArchive}
        title={`Archive ${agent.name}?`}
        confirmLabel="Archive"
        action={archive}
        onClose={() => {
          setConfirmArchive(false);
          archive.reset();
        }}
        onConfirm={() =>
          archive.mutate(
            { name: agent.name },
            {
              onSuccess() {
                setConfirmArchive(false);
                changed(true);
              },
            },
          )
        }
      >
        It leaves the list and cannot start new runs. Its versions and past runs are kept; Unarchive brings it back.
      </ConfirmAction>
    </>
  );
}
