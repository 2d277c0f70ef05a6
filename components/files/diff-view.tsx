"use client";
// One changed file in Monaco's diff editor: as the run started (left) and now (right).
import dynamic from "next/dynamic";
import { EmptyState } from "@/components/ui";
import type { FileChangeView } from "@/lib/trpc";
import { CHANGE_LABELS, ChangeStatusLetter } from "./change-status";
import { EditorLoading } from "./editor-loading";

const CodeDiff = dynamic(() => import("./monaco").then((m) => m.CodeDiff), { ssr: false, loading: () => <EditorLoading /> });

export function DiffView({ path, change, onOpenFile }: { path: string; change: FileChangeView | null; onOpenFile(path: string): void }) {
  return (
    <section className="editor-pane" aria-label={`Changes to ${path}`} data-testid="diff-view">
      <div className="editor-toolbar">
        {change && <ChangeStatusLetter status={change.status} />}
        <span className="editor-path" title={path}>
          {change?.oldPath && <span className="muted">{change.oldPath} → </span>}
          {path}
        </span>
        {change && <span className="muted small">{CHANGE_LABELS[change.status]} since the run started</span>}
        <span className="spacer" />
        {change && change.status !== "D" && (
          <button type="button" className="btn btn-sm" onClick={() => onOpenFile(path)} data-testid="open-changed-file">
            Open file
          </button>
        )}
      </div>
      <div className="editor-host">
        {!change ? (
          <EmptyState icon="✓" title="No changes to this file">
            {path} is the same as when the run started, or no longer exists.
          </EmptyState>
        ) : change.binary ? (
          <EmptyState icon="⌗" title="Binary file">
            {path} is not text, so its changes cannot be shown here. Download the workspace to see it.
          </EmptyState>
        ) : change.tooLarge ? (
          <EmptyState icon="⇲" title="Too large to show">
            {path} is larger than 2 MB (or the changes together are too large to show at once). Download the workspace to see it.
          </EmptyState>
        ) : (
          <CodeDiff path={path} original={change.original ?? ""} modified={change.current ?? ""} />
        )}
      </div>
    </section>
  );
}
