"use client";
// Monaco from node_modules, never from a CDN (the machines are offline):
// @monaco-editor/react is pointed at the bundled monaco-editor, and each web
// worker is its own bundle entry (new Worker(new URL(...)) is understood by
// Next's bundler). Imported only in the browser (next/dynamic, ssr: false).
import * as monaco from "monaco-editor";
import { DiffEditor, Editor, loader, type DiffOnMount, type OnMount } from "@monaco-editor/react";
import { EditorLoading } from "./editor-loading";
import { useTheme } from "@/components/theme";

self.MonacoEnvironment = {
  getWorker(_workerId: string, label: string) {
    switch (label) {
      case "json":
        return new Worker(new URL("./workers/json.worker.ts", import.meta.url), { type: "module", name: label });
      case "css":
      case "scss":
      case "less":
        return new Worker(new URL("./workers/css.worker.ts", import.meta.url), { type: "module", name: label });
      case "html":
      case "handlebars":
      case "razor":
        return new Worker(new URL("./workers/html.worker.ts", import.meta.url), { type: "module", name: label });
      case "typescript":
      case "javascript":
        return new Worker(new URL("./workers/ts.worker.ts", import.meta.url), { type: "module", name: label });
      default:
        return new Worker(new URL("./workers/editor.worker.ts", import.meta.url), { type: "module", name: label });
    }
  },
};

loader.config({ monaco });

// A file opened on its own cannot see the rest of its project, so every
// import would be flagged; keep syntax errors, drop those false alarms.
for (const defaults of [monaco.typescript.javascriptDefaults, monaco.typescript.typescriptDefaults]) {
  defaults.setDiagnosticsOptions({ noSemanticValidation: true, noSyntaxValidation: false });
}

/** Monaco's language id for a path (by file name, then extension), or plain text. */
export function languageFor(path: string): string {
  const name = path.split("/").pop()!.toLowerCase();
  for (const lang of monaco.languages.getLanguages()) {
    if (lang.filenames?.some((f) => f.toLowerCase() === name)) return lang.id;
  }
  let best: { id: string; length: number } | null = null;
  for (const lang of monaco.languages.getLanguages()) {
    for (const ext of lang.extensions ?? []) {
      if (name.endsWith(ext.toLowerCase()) && (!best || ext.length > best.length)) best = { id: lang.id, length: ext.length };
    }
  }
  return best?.id ?? "plaintext";
}

const SHARED: monaco.editor.IEditorOptions = {
  fontSize: 13,
  fontFamily: 'ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "DejaVu Sans Mono", "Liberation Mono", monospace',
  minimap: { enabled: false },
  scrollBeyondLastLine: false,
  automaticLayout: true,
  renderWhitespace: "selection",
  smoothScrolling: false,
  padding: { top: 8, bottom: 8 },
  // Tab moves focus out of the editor only after Ctrl+M, as in VS Code; say so to screen readers.
  ariaLabel: "File editor",
};

export type CodeEditorHandle = monaco.editor.IStandaloneCodeEditor;

/** Monaco's built-in theme matching the page (it follows a switch while open). */
function useMonacoTheme(): "vs" | "vs-dark" {
  return useTheme().resolvedTheme === "dark" ? "vs-dark" : "vs";
}

export function CodeEditor({
  path,
  initialValue,
  readOnly,
  onMount,
  onChange,
}: {
  path: string;
  initialValue: string;
  readOnly: boolean;
  onMount(editor: CodeEditorHandle, api: typeof monaco): void;
  onChange(): void;
}) {
  const mount: OnMount = (editor, api) => onMount(editor, api as typeof monaco);
  const theme = useMonacoTheme();
  return (
    <Editor
      defaultValue={initialValue}
      defaultLanguage={languageFor(path)}
      theme={theme}
      onMount={mount}
      onChange={onChange}
      loading={<EditorLoading />}
      options={{
        ...SHARED,
        readOnly,
        ariaLabel: `${path}${readOnly ? " (read-only)" : ""}`,
        readOnlyMessage: { value: "Editing files needs the operator role" },
      }}
    />
  );
}

export function CodeDiff({
  path,
  original,
  modified,
  onMount,
  label,
  wrap = false,
}: {
  path: string;
  original: string;
  modified: string;
  onMount?: DiffOnMount;
  /** What a screen reader calls the editor; "Changes to <path>" by default. */
  label?: string;
  /** Wrap long lines (prose such as a run's final answer) instead of scrolling sideways. */
  wrap?: boolean;
}) {
  const language = languageFor(path);
  const theme = useMonacoTheme();
  return (
    <DiffEditor
      original={original}
      modified={modified}
      language={language}
      theme={theme}
      onMount={onMount}
      loading={<EditorLoading />}
      options={{
        ...SHARED,
        readOnly: true,
        originalEditable: false,
        renderSideBySide: true,
        useInlineViewWhenSpaceIsLimited: true,
        renderOverviewRuler: false,
        ariaLabel: label ?? `Changes to ${path}`,
        ...(wrap ? { wordWrap: "on" as const, diffWordWrap: "on" as const } : {}),
      }}
    />
  );
}
