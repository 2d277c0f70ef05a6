"use client";
// The instructions in Monaco (Markdown), or as they read (Preview). Ctrl/Cmd+S
// inside the editor saves like anywhere else on the page.
import dynamic from "next/dynamic";
import { useCallback, useRef, useState } from "react";
import { EditorLoading } from "@/components/files/editor-loading";
import type { CodeEditorHandle } from "@/components/files/monaco";
import { MarkdownPreview } from "./markdown-preview";
import { FieldProblems } from "./field-problems";
import styles from "./agents.module.css";

// Monaco comes from the bundle (components/files/monaco points the loader at it), never from a CDN.
const CodeEditor = dynamic(() => import("@/components/files/monaco").then((m) => m.CodeEditor), {
  ssr: false,
  loading: () => <EditorLoading />,
});

type MonacoApi = typeof import("monaco-editor");

export function InstructionsField({
  value,
  resetKey,
  readOnly,
  problems,
  onChange,
  onSave,
}: {
  value: string;
  /** Changes when the text is replaced from outside (a version loaded): the editor starts again from `value`. */
  resetKey: number;
  readOnly: boolean;
  problems?: string[];
  onChange(value: string): void;
  onSave(): void;
}) {
  const [preview, setPreview] = useState(false);
  const editorRef = useRef<CodeEditorHandle | null>(null);
  const changeRef = useRef(onChange);
  changeRef.current = onChange;
  const saveRef = useRef(onSave);
  saveRef.current = onSave;

  const onMount = useCallback(
    (editor: CodeEditorHandle, api: MonacoApi) => {
      editorRef.current = editor;
      editor.updateOptions({
        ariaLabel: readOnly ? "Instructions (read-only)" : "Instructions",
        wordWrap: "on",
        lineNumbers: "off",
        readOnlyMessage: { value: "A built-in agent cannot be changed: copy it to edit." },
      });
      editor.addCommand(api.KeyMod.CtrlCmd | api.KeyCode.KeyS, () => saveRef.current());
    },
    [readOnly],
  );
  const onEdit = useCallback(() => {
    const model = editorRef.current?.getModel();
    if (model) changeRef.current(model.getValue());
  }, []);

  return (
    <div className="field" id="agent-field-instructions">
      <div className="row">
        <label id="agent-instructions-label" className="label">
          Instructions
        </label>
        <span className="hint">Markdown: what the agent is, how it works, what it must not do.</span>
        <span className="spacer" />
        <div className={styles.segmented} role="group" aria-label="Instructions view">
          <button type="button" aria-pressed={!preview} onClick={() => setPreview(false)} data-testid="instructions-edit">
            {readOnly ? "Source" : "Edit"}
          </button>
          <button type="button" aria-pressed={preview} onClick={() => setPreview(true)} data-testid="instructions-preview-toggle">
            Preview
          </button>
        </div>
      </div>
      {preview ? (
        <MarkdownPreview source={value} />
      ) : (
        <div
          className={`${styles.instructionsHost}${problems?.length ? ` ${styles.invalidBox}` : ""}`}
          data-testid="instructions-editor"
          aria-labelledby="agent-instructions-label"
        >
          <CodeEditor key={resetKey} path="instructions.md" initialValue={value} readOnly={readOnly} onMount={onMount} onChange={onEdit} />
        </div>
      )}
      <FieldProblems field="instructions" messages={problems} />
    </div>
  );
}
