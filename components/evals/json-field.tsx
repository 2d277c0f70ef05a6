"use client";
// A JSON value edited in Monaco (an item's scenario or expected outcome), its
// problems under it in words. Ctrl/Cmd+Enter inside the editor saves the form;
// Ctrl+M then Tab leaves the editor, as in VS Code.
import dynamic from "next/dynamic";
import { useCallback, useRef } from "react";
import { FieldProblems } from "@/components/agents/field-problems";
import { EditorLoading } from "@/components/files/editor-loading";
import type { CodeEditorHandle } from "@/components/files/monaco";
import styles from "./evals.module.css";

// Monaco comes from the bundle (components/files/monaco points the loader at it), never from a CDN.
const CodeEditor = dynamic(() => import("@/components/files/monaco").then((m) => m.CodeEditor), {
  ssr: false,
  loading: () => <EditorLoading />,
});

type MonacoApi = typeof import("monaco-editor");

export function JsonField({
  field,
  label,
  hint,
  value,
  readOnly = false,
  tall = false,
  problems,
  testId,
  onChange,
  onSubmit,
}: {
  /** The form field's name: ids, problems. */
  field: string;
  label: string;
  hint?: string;
  /** The text Monaco starts with; later edits come back through onChange. */
  value: string;
  readOnly?: boolean;
  tall?: boolean;
  problems?: string[];
  testId: string;
  onChange(value: string): void;
  onSubmit?(): void;
}) {
  const editorRef = useRef<CodeEditorHandle | null>(null);
  const changeRef = useRef(onChange);
  changeRef.current = onChange;
  const submitRef = useRef(onSubmit);
  submitRef.current = onSubmit;

  const onMount = useCallback(
    (editor: CodeEditorHandle, api: MonacoApi) => {
      editorRef.current = editor;
      editor.updateOptions({
        ariaLabel: `${label}, JSON${readOnly ? " (read-only)" : ""}. Press Ctrl+M then Tab to leave the editor.`,
        lineNumbers: "off",
        wordWrap: "on",
        tabSize: 2,
        readOnlyMessage: { value: "This item cannot be changed here" },
      });
      editor.addCommand(api.KeyMod.CtrlCmd | api.KeyCode.Enter, () => submitRef.current?.());
    },
    [label, readOnly],
  );
  const onEdit = useCallback(() => {
    const model = editorRef.current?.getModel();
    if (model) changeRef.current(model.getValue());
  }, []);

  return (
    <div className="field" id={`item-field-${field}`}>
      <span id={`item-${field}-label`} className="label">
        {label}
      </span>
      {hint && <span className="hint">{hint}</span>}
      <div
        className={`${styles.jsonHost}${tall ? ` ${styles.jsonHostTall}` : ""}${problems?.length ? ` ${styles.invalidBox}` : ""}`}
        aria-labelledby={`item-${field}-label`}
        data-testid={testId}
      >
        <CodeEditor path={`${field}.json`} initialValue={value} readOnly={readOnly} onMount={onMount} onChange={onEdit} />
      </div>
      <FieldProblems field={field} messages={problems} />
    </div>
  );
}
