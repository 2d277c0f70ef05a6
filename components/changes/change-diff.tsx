"use client";
// The change's diff (base..head): its files on the left, the chosen one in
// Monaco's read-only diff editor with the real line numbers of each hunk; the
// raw unified diff one click away. A link to #diff=<path> (each file of the
// Files card is one) opens that file here and scrolls to it.
import type { DiffOnMount } from "@monaco-editor/react";
import dynamic from "next/dynamic";
import { useEffect, useMemo, useRef, useState } from "react";
import { EditorLoading } from "@/components/files/editor-loading";
import { EmptyState } from "@/components/ui";
import { parseUnifiedDiff, type DiffFile } from "@/lib/unified-diff";
import type { ChangeDetail } from "./format";
import styles from "./changes.module.css";

const CodeDiff = dynamic(() => import("@/components/files/monaco").then((m) => m.CodeDiff), {
  ssr: false,
  loading: () => <EditorLoading />,
});

const STATUS_WORDS: Record<DiffFile["status"], string> = { A: "added", M: "modified", D: "deleted" };

export function ChangeDiff({ change }: { change: ChangeDetail }) {
  const diff = change.diff;
  const files = useMemo(() => (diff ? parseUnifiedDiff(diff.text) : []), [diff]);
  const [chosen, setChosen] = useState<string | null>(null);
  const [raw, setRaw] = useState(false);
  const file = files.find((f) => f.path === chosen) ?? files[0];
  const section = useRef<HTMLElement>(null);
  useEffect(() => {
    const follow = () => {
      const path = fileOfHash(window.location.hash);
      if (path === null) return;
      setChosen(path);
      setRaw(false);
      section.current?.scrollIntoView({ block: "start" });
    };
    follow();
    window.addEventListener("hashchange", follow);
    return () => window.removeEventListener("hashchange", follow);
  }, []);

  return (
    <section ref={section} className={`card ${styles.section}`} aria-labelledby="change-diff-title" data-testid="change-diff" id="diff">
      <div className="card-header">
        <h2 id="change-diff-title" style={{ flex: 1 }}>
          Diff{" "}
          {change.headCommit && (
            <span className="small muted mono">
              {change.baseCommit.slice(0, 8)}..{change.headCommit.slice(0, 8)}
            </span>
          )}
        </h2>
        {files.length > 0 && (
          <div className="row" role="group" aria-label="Diff view">
            <button type="button" className="chip" aria-pressed={!raw} onClick={() => setRaw(false)} data-testid="diff-side-by-side">
              Side by side
            </button>
            <button type="button" className="chip" aria-pressed={raw} onClick={() => setRaw(true)} data-testid="diff-raw">
              Unified text
            </button>
          </div>
        )}
      </div>
      {diff?.truncated && (
        <div className="alert alert-warn" role="status" style={{ margin: "0 16px 12px" }} data-testid="diff-truncated">
          The diff was cut at 512 KiB: the last files are missing or incomplete. Their list and counts above are complete.
        </div>
      )}
      {!change.headCommit ? (
        <EmptyState icon="…" title="Nothing proposed yet">
          The agent has not proposed a change yet; its diff appears here once it does.
        </EmptyState>
      ) : !diff ? (
        <EmptyState icon="!" title="The diff cannot be shown">
          The repository no longer has the change&apos;s commits, or git could not read them.
        </EmptyState>
      ) : files.length === 0 ? (
        <EmptyState icon="=" title="No differences">
          The head commit has the same files as the base.
        </EmptyState>
      ) : raw ? (
        <pre className={`code-block ${styles.rawDiff}`} data-testid="diff-text">
          {diff.text}
        </pre>
      ) : (
        <div className={styles.diffBody}>
          <div className={styles.diffFiles} role="group" aria-label="Changed files">
            {files.map((f) => (
              <button
                key={f.path}
                type="button"
                className={styles.diffFile}
                aria-pressed={f === file}
                onClick={() => setChosen(f.path)}
                title={`${f.path} (${STATUS_WORDS[f.status]})`}
                data-testid="diff-file"
                data-path={f.path}
              >
                <span className={`change-status change-${f.status}`} aria-label={STATUS_WORDS[f.status]}>
                  {f.status}
                </span>
                <span className={styles.diffPath}>{f.path}</span>
                <span className="small nowrap">
                  <span className={styles.plus}>+{f.additions}</span> <span className={styles.minus}>−{f.deletions}</span>
                </span>
              </button>
            ))}
          </div>
          <div className={styles.editor}>{file && <FileDiff key={file.path} file={file} />}</div>
        </div>
      )}
    </section>
  );
}

/** The link to one file's diff on the change's page. */
export const diffHref = (path: string) => `#diff=${encodeURIComponent(path)}`;

function fileOfHash(hash: string): string | null {
  if (!hash.startsWith("#diff=")) return null;
  try {
    return decodeURIComponent(hash.slice("#diff=".length));
  } catch {
    return null;
  }
}

function FileDiff({ file }: { file: DiffFile }) {
  if (file.binary)
    return (
      <EmptyState icon="⌗" title="Binary file">
        {file.path} is not text, so its changes cannot be shown here.
      </EmptyState>
    );
  // Each side numbers its lines as in its file; a hunk header has no number.
  const onMount: DiffOnMount = (editor) => {
    editor.getOriginalEditor().updateOptions({ lineNumbers: (n) => String(file.originalLines[n - 1] ?? "") });
    editor.getModifiedEditor().updateOptions({ lineNumbers: (n) => String(file.modifiedLines[n - 1] ?? "") });
  };
  return (
    <CodeDiff
      path={file.path}
      original={file.original}
      modified={file.modified}
      onMount={onMount}
      label={`Changes to ${file.path} (read-only)`}
    />
  );
}
