"use client";
// A SKILL.md in Monaco: each problem the server finds becomes a marker on its
// line, and Ctrl/Cmd+S saves.
import dynamic from "next/dynamic";
import { useCallback, useEffect, useRef } from "react";
import { EditorLoading } from "@/components/files/editor-loading";
import type { CodeEditorHandle } from "@/components/files/monaco";

const CodeEditor = dynamic(() => import("@/components/files/monaco").then((m) => m.CodeEditor), {
  ssr: false,
  loading: () => <EditorLoading />,
});

type MonacoApi = typeof import("monaco-editor");
export interface SkillProblemView {
  line?: number;
  field?: string;
  message: string;
  text: string;
}

const MARKER_OWNER = "rein-skill";

export function SkillEditor({
  initialValue,
  problems,
  readOnly,
  onChange,
  onSave,
}: {
  initialValue: string;
  problems: SkillProblemView[];
  readOnly: boolean;
  onChange(value: string): void;
  onSave(): void;
}) {
  const editorRef = useRef<CodeEditorHandle | null>(null);
  const apiRef = useRef<MonacoApi | null>(null);
  const saveRef = useRef(onSave);
  saveRef.current = onSave;
  const changeRef = useRef(onChange);
  changeRef.current = onChange;

  const drawMarkers = useCallback(() => {
    const model = editorRef.current?.getModel();
    const api = apiRef.current;
    if (!model || !api) return;
    const lines = model.getLineCount();
    api.editor.setModelMarkers(
      model,
      MARKER_OWNER,
      problems.map((p) => {
        const line = Math.min(Math.max(p.line ?? 1, 1), lines);
        return {
          severity: api.MarkerSeverity.Error,
          message: p.message,
          startLineNumber: line,
          startColumn: model.getLineFirstNonWhitespaceColumn(line) || 1,
          endLineNumber: line,
          endColumn: model.getLineMaxColumn(line),
        };
      }),
    );
  }, [problems]);
  useEffect(drawMarkers, [drawMarkers]);

  const onMount = useCallback(
    (editor: CodeEditorHandle, api: MonacoApi) => {
      editorRef.current = editor;
      apiRef.current = api;
      // Word suggestions help little in prose, and Enter must always mean a new line.
      editor.updateOptions({
        ariaLabel: "SKILL.md",
        tabSize: 2,
        insertSpaces: true,
        wordWrap: "on",
        quickSuggestions: false,
        acceptSuggestionOnEnter: "off",
      });
      editor.addCommand(api.KeyMod.CtrlCmd | api.KeyCode.KeyS, () => saveRef.current());
      drawMarkers();
    },
    [drawMarkers],
  );

  const onEdit = useCallback(() => {
    const model = editorRef.current?.getModel();
    if (model) changeRef.current(model.getValue());
  }, []);

  return (
    <div className="editor-host" style={{ height: 460 }} data-testid="skill-editor">
      <CodeEditor path="SKILL.md" initialValue={initialValue} readOnly={readOnly} onMount={onMount} onChange={onEdit} />
    </div>
  );
}
