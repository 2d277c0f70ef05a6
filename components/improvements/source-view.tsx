"use client";
// The improvement's source in read-only Monaco: JavaScript for a runtime tool,
// SKILL.md for a skill; against the previous version in the diff editor.
import dynamic from "next/dynamic";
import { useState } from "react";
import { EditorLoading } from "@/components/files/editor-loading";
import type { ImprovementDetail } from "./format";
import styles from "./improvements.module.css";

const CodeEditor = dynamic(() => import("@/components/files/monaco").then((m) => m.CodeEditor), {
  ssr: false,
  loading: () => <EditorLoading />,
});
const CodeDiff = dynamic(() => import("@/components/files/monaco").then((m) => m.CodeDiff), {
  ssr: false,
  loading: () => <EditorLoading />,
});

const noop = () => {};

export function SourceView({ improvement: i }: { improvement: ImprovementDetail }) {
  const path = i.kind === "skill" ? `${i.name}/SKILL.md` : `${i.name}.js`;
  const previous = i.previous;
  const [diff, setDiff] = useState(false);
  return (
    <section className="card" aria-labelledby="source-title" data-testid="improvement-source">
      <div className="card-header">
        <h2 id="source-title" style={{ flex: 1 }}>
          {i.kind === "skill" ? "SKILL.md" : "Source"} <span className="small muted mono">{path}</span>
        </h2>
        {previous && (
          <div className="row" role="group" aria-label="Source view">
            <button type="button" className="chip" aria-pressed={!diff} onClick={() => setDiff(false)} data-testid="source-plain">
              v{i.version}
            </button>
            <button type="button" className="chip" aria-pressed={diff} onClick={() => setDiff(true)} data-testid="source-diff">
              Changes since v{previous.version}
            </button>
          </div>
        )}
      </div>
      <div className={styles.editor}>
        {diff && previous ? (
          <CodeDiff path={path} original={previous.source} modified={i.source} label={`${i.name}: v${previous.version} to v${i.version}`} />
        ) : (
          <CodeEditor key={i.id} path={path} initialValue={i.source} readOnly onMount={noop} onChange={noop} />
        )}
      </div>
    </section>
  );
}
