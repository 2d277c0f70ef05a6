"use client";
// The run page's Files tab: the workspace's file tree and what the run
// changed since it started on the left; Monaco (editor or diff) on the right.
// The open file lives in the URL (?tab=files&file=... or &change=...).
import { useSearchParams } from "next/navigation";
import { useCallback, useEffect, useMemo, useState } from "react";
import { ConfirmDialog, EmptyState, ErrorState, Skeleton, TabPanel, Tabs } from "@/components/ui";
import { aRole, useRoleIn } from "@/lib/access";
import { errorMessage } from "@/lib/errors";
import { formatNumber, pluralize } from "@/lib/format";
import { trpc, type FileTreeNode, type Run, type RunState } from "@/lib/trpc";
import type { ChangeStatus } from "./change-status";
import { ChangesList } from "./changes-list";
import { DiffView } from "./diff-view";
import { FileEditor } from "./file-editor";
import { DownloadIcon, RefreshIcon } from "./file-icons";
import { FileTree } from "./file-tree";

type Side = "files" | "changes";
const SIDES: Array<{ id: Side; label: string }> = [
  { id: "files", label: "All files" },
  { id: "changes", label: "Changes" },
];

function countFiles(nodes: FileTreeNode[]): number {
  return nodes.reduce((n, node) => n + (node.type === "dir" ? countFiles(node.children) : 1), 0);
}

function show(key: "file" | "change", path: string) {
  const url = new URL(window.location.href);
  url.searchParams.delete("file");
  url.searchParams.delete("change");
  url.searchParams.set(key, path);
  window.history.replaceState(null, "", url);
}

function SideSkeleton() {
  return (
    <div className="stack" style={{ padding: 12, gap: 10 }} role="status" aria-label="Loading">
      {[60, 45, 70, 40, 55].map((w, i) => (
        <Skeleton key={i} width={`${w}%`} />
      ))}
    </div>
  );
}

export function FilesTab({ run, status, active }: { run: Run; status: RunState; active: boolean }) {
  const runId = run.id;
  const { me, canOperate, role } = useRoleIn(run.teamId);
  const utils = trpc.useUtils();
  // Hidden behind another tab, the queries do not refetch; they catch up when the tab is shown again.
  const tree = trpc.files.tree.useQuery({ runId }, { enabled: active });
  const diff = trpc.files.diff.useQuery({ runId }, { enabled: active });
  const params = useSearchParams();
  const openFile = params.get("file");
  const openChange = params.get("change");
  const [side, setSide] = useState<Side>(openChange ? "changes" : "files");
  const [dirty, setDirty] = useState(false);
  const [pending, setPending] = useState<{ path: string; go(): void } | null>(null);

  const statuses = useMemo(() => new Map<string, ChangeStatus>((diff.data?.files ?? []).map((f) => [f.path, f.status])), [diff.data]);
  const fileCount = useMemo(() => (tree.data ? countFiles(tree.data.entries) : 0), [tree.data]);
  const changes = diff.data?.files ?? [];

  // Monaco is a few MB of code: start loading it while the tree is being read.
  useEffect(() => void import("./monaco").catch(() => {}), []);

  // Opening something else would drop unsaved edits: ask first.
  const guarded = useCallback(
    (go: () => void) => {
      if (dirty && openFile) setPending({ path: openFile, go });
      else go();
    },
    [dirty, openFile],
  );
  const openPath = (path: string) => path !== openFile && guarded(() => show("file", path));
  const openDiff = (path: string) => path !== openChange && guarded(() => show("change", path));
  const refresh = () => {
    void utils.files.tree.invalidate({ runId });
    void utils.files.diff.invalidate({ runId });
    void utils.files.read.invalidate({ runId });
  };

  if (tree.data && !tree.data.exists) {
    return (
      <div className="card files-missing" data-testid="files-no-workspace">
        <EmptyState icon="◌" title="No workspace yet">
          The run has not started; its workspace does not exist yet.{" "}
          {["queued", "running", "paused", "waiting_human"].includes(status) ? "Its files appear here as soon as it starts." : ""}
        </EmptyState>
      </div>
    );
  }

  const readOnlyReason = `Editing files needs the operator role; you are ${me ? `${aRole(role)}${run.teamId && role !== "admin" ? " in this run's team" : ""}` : "not signed in"}`;

  return (
    <div className="files-tab" data-testid="files-tab">
      <div className="files-toolbar">
        <span className="panel-title">Workspace</span>
        {tree.data && (
          <span data-testid="files-summary">
            {pluralize(fileCount, "file")}
            {diff.data && ` · ${pluralize(changes.length, "file")} changed since the run started`}
          </span>
        )}
        <span className="spacer" />
        <button
          type="button"
          className="btn btn-ghost btn-sm"
          onClick={refresh}
          title="Read the workspace again"
          data-testid="files-refresh"
        >
          {tree.isFetching || diff.isFetching ? <span className="spinner" aria-hidden="true" /> : <RefreshIcon />}
          Refresh
        </button>
        <a
          className="btn btn-sm"
          href={`/api/v1/runs/${encodeURIComponent(runId)}/workspace.tar.gz`}
          download
          title="Download the workspace as a .tar.gz archive (without .git)"
          data-testid="download-workspace"
        >
          <DownloadIcon />
          Download workspace
        </a>
      </div>

      <div className="files-body">
        <aside className="files-side card" aria-label="Workspace">
          <Tabs
            tabs={SIDES.map((s) => ({
              id: s.id,
              testId: `files-side-${s.id}`,
              label: (
                <>
                  {s.label}
                  {s.id === "changes" && diff.data && <span className="side-tab-count">{formatNumber(changes.length)}</span>}
                </>
              ),
            }))}
            active={side}
            onSelect={setSide}
            label="Workspace views"
            tabId={(id) => `files-side-${id}`}
            className="side-tabs"
            tabClassName="side-tab"
          />
          <TabPanel className="files-side-body" labelledBy={`files-side-${side}`}>
            {side === "files" ? (
              tree.isError ? (
                <ErrorState title="Could not read the workspace" message={errorMessage(tree.error)} onRetry={() => tree.refetch()} />
              ) : !tree.data ? (
                <SideSkeleton />
              ) : tree.data.entries.length === 0 ? (
                <EmptyState icon="∅" title="The workspace is empty">
                  The agent has not written any files yet.
                </EmptyState>
              ) : (
                <>
                  <FileTree entries={tree.data.entries} count={tree.data.count} selected={openFile} statuses={statuses} onOpen={openPath} />
                  {tree.data.truncated && (
                    <p className="side-note" data-testid="tree-truncated">
                      Showing the first {formatNumber(tree.data.limit)} files and folders. Download the workspace to see all of them.
                    </p>
                  )}
                </>
              )
            ) : diff.isError ? (
              <ErrorState title="Could not compare the workspace" message={errorMessage(diff.error)} onRetry={() => diff.refetch()} />
            ) : !diff.data ? (
              <SideSkeleton />
            ) : changes.length === 0 ? (
              <EmptyState icon="✓" title="No changes">
                Nothing has changed since the run started.
              </EmptyState>
            ) : (
              <>
                <ChangesList files={changes} selected={openChange} onOpen={openDiff} />
                {diff.data.truncated && (
                  <p className="side-note">
                    Showing the first {formatNumber(changes.length)} changed files. Download the workspace to see all of them.
                  </p>
                )}
              </>
            )}
          </TabPanel>
        </aside>

        <div className="files-main card">
          {openChange ? (
            diff.isError ? (
              <ErrorState title="Could not compare the workspace" message={errorMessage(diff.error)} onRetry={() => diff.refetch()} />
            ) : !diff.data ? (
              <SideSkeleton />
            ) : (
              <DiffView path={openChange} change={changes.find((c) => c.path === openChange) ?? null} onOpenFile={openPath} />
            )
          ) : openFile ? (
            <FileEditor
              key={openFile}
              runId={runId}
              path={openFile}
              active={active}
              canEdit={canOperate}
              readOnlyReason={readOnlyReason}
              onDirtyChange={setDirty}
            />
          ) : (
            <EmptyState icon="⌘" title="Open a file">
              Choose a file on the left to {canOperate ? "view and edit" : "view"} it, or open Changes to see what the run changed since it
              started.
            </EmptyState>
          )}
        </div>
      </div>

      <ConfirmDialog
        open={pending !== null}
        title="Discard unsaved changes?"
        confirmLabel="Discard changes"
        cancelLabel="Keep editing"
        onConfirm={() => {
          const go = pending?.go;
          setPending(null);
          setDirty(false);
          go?.();
        }}
        onClose={() => setPending(null)}
      >
        Your edits to {pending?.path} are not saved. Opening another file discards them.
      </ConfirmDialog>
    </div>
  );
}
