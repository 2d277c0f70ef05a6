"use client";
// The policy YAML in Monaco: validation errors become markers on their lines,
// Ctrl/Cmd+S saves, and the page can replace the text (undoably) or jump to a line.
import dynamic from "next/dynamic";
import { useCallback, useEffect, useImperativeHandle, useRef, type Ref } from "react";
import { EditorLoading } from "@/components/files/editor-loading";
import type { CodeEditorHandle } from "@/components/files/monaco";
import type { PolicyErrorView } from "./types";

const CodeEditor = dynamic(() => import("@/components/files/monaco").then((m) => m.CodeEditor), {
  ssr: false,
  loading: () => <EditorLoading />,
});

type MonacoApi = typeof import("monaco-editor");

export interface PolicyEditorHandle {
  /** Replaces the whole text; with undoable, Ctrl+Z brings the old text back. */
  setValue(source: string, undoable: boolean): void;
  revealLine(line: number): void;
}

const MARKER_OWNER = "rein-policy";

export function PolicyEditor({
  initialValue,
  errors,
  warnings = [],
  onChange,
  onSave,
  onReady,
  handleRef,
}: {
  initialValue: string;
  /** Errors of the text now in the editor (markers are not drawn for stale results). */
  errors: PolicyErrorView[];
  /** Rules that can never match: yellow markers, saving is still allowed. */
  warnings?: PolicyErrorView[];
  onChange(value: string): void;
  onSave(): void;
  /** Monaco is up, holding this text: the page may now bring it up to date or move to a line. */
  onReady?(value: string): void;
  handleRef: Ref<PolicyEditorHandle>;
}) {
  const editorRef = useRef<CodeEditorHandle | null>(null);
  const apiRef = useRef<MonacoApi | null>(null);
  const saveRef = useRef(onSave);
  saveRef.current = onSave;
  const changeRef = useRef(onChange);
  changeRef.current = onChange;
  const readyRef = useRef(onReady);
  readyRef.current = onReady;

  useImperativeHandle(handleRef, () => ({
    setValue(source, undoable) {
      const editor = editorRef.current;
      const model = editor?.getModel();
      if (!editor || !model) return;
      if (undoable) {
        editor.pushUndoStop();
        editor.executeEdits("policy-history", [{ range: model.getFullModelRange(), text: source }]);
        editor.pushUndoStop();
      } else {
        model.setValue(source);
      }
      changeRef.current(model.getValue());
    },
    revealLine(line) {
      const editor = editorRef.current;
      if (!editor) return;
      editor.revealLineInCenter(line);
      editor.setPosition({ lineNumber: line, column: 1 });
      editor.focus();
    },
  }));

  const drawMarkers = useCallback(() => {
    const model = editorRef.current?.getModel();
    const api = apiRef.current;
    if (!model || !api) return;
    const lines = model.getLineCount();
    api.editor.setModelMarkers(
      model,
      MARKER_OWNER,
      [
        ...errors.map((e) => ({ ...e, severity: api.MarkerSeverity.Error })),
        ...warnings.map((e) => ({ ...e, severity: api.MarkerSeverity.Warning })),
      ].map((e) => {
        const line = Math.min(Math.max(e.line ?? 1, 1), lines);
        return {
          severity: e.severity,
          message: e.message,
          startLineNumber: line,
          startColumn: model.getLineFirstNonWhitespaceColumn(line) || 1,
          endLineNumber: line,
          endColumn: model.getLineMaxColumn(line),
        };
      }),
    );
  }, [errors, warnings]);
  useEffect(drawMarkers, [drawMarkers]);

  const onMount = useCallback(
    (editor: CodeEditorHandle, api: MonacoApi) => {
      editorRef.current = editor;
      apiRef.current = api;
      editor.updateOptions({ ariaLabel: "Policy YAML", tabSize: 2, insertSpaces: true });
      editor.addCommand(api.KeyMod.CtrlCmd | api.KeyCode.KeyS, () => saveRef.current());
      drawMarkers();
      readyRef.current?.(editor.getModel()?.getValue() ?? "");
    },
    [drawMarkers],
  );

  const onEdit = useCallback(() => {
    const model = editorRef.current?.getModel();
    if (model) changeRef.current(model.getValue());
  }, []);

  return (
    <div className="editor-host" data-testid="policy-editor">
      <CodeEditor path="policy.yaml" initialValue={initialValue} readOnly={false} onMount={onMount} onChange={onEdit} />
    </div>
  );
}
