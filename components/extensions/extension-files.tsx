"use client";
// An extension's files, read-only: the list on the left, the chosen file in
// Monaco. Nothing here runs the package; it is text to read.
import dynamic from "next/dynamic";
import { useCallback, useState } from "react";
import { EditorLoading } from "@/components/files/editor-loading";
import type { CodeEditorHandle } from "@/components/files/monaco";
import styles from "./extensions.module.css";

const CodeEditor = dynamic(() => import("@/components/files/monaco").then((m) => m.CodeEditor), {
  ssr: false,
  loading: () => <EditorLoading />,
});

export function ExtensionFiles({ files }: { files: Record<string, string> }) {
  const paths = Object.keys(files).sort((a, b) => (a === "index.js" ? -1 : b === "index.js" ? 1 : a.localeCompare(b)));
  const [current, setCurrent] = useState(paths[0] ?? "");
  const onMount = useCallback((editor: CodeEditorHandle) => {
    editor.updateOptions({ readOnlyMessage: { value: "An extension's files are not edited here: propose a new version" }, wordWrap: "on" });
  }, []);
  if (!paths.length)
    return (
      <p className="muted small" style={{ padding: 16 }}>
        The package has no files.
      </p>
    );
  return (
    <div className={styles.files}>
      <ul className={styles.fileList} aria-label="Files" data-testid="extension-files">
        {paths.map((p) => (
          <li key={p}>
            <button
              type="button"
              className={styles.fileButton}
              aria-current={p === current}
              onClick={() => setCurrent(p)}
              data-testid="extension-file"
              data-path={p}
            >
              {p}
            </button>
          </li>
        ))}
      </ul>
      <div className={`editor-host ${styles.editor}`} data-testid="extension-file-view" data-path={current}>
        <CodeEditor key={current} path={current} initialValue={files[current] ?? ""} readOnly onMount={onMount} onChange={() => {}} />
      </div>
    </div>
  );
}
