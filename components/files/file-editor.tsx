"use client";
// One file of the workspace in Monaco. Operators edit and save (button or
// Ctrl/Cmd+S); a save is checked against the version that was loaded, so a
// change made meanwhile by the agent or someone else is never overwritten
// silently. Viewers read.
import dynamic from "next/dynamic";
import { useCallback, useEffect, useRef, useState } from "react";
import { ErrorBlock, ErrorState } from "@/components/ui";
import { errorCode, errorMessage } from "@/lib/errors";
import { formatFileSize } from "@/lib/format";
import { MAX_TEXT_BYTES } from "@/lib/limits";
import { trpc } from "@/lib/trpc";
import { EditorLoading } from "./editor-loading";
import { FileIcon } from "./file-icons";
import type { CodeEditorHandle } from "./monaco";

const CodeEditor = dynamic(() => import("./monaco").then((m) => m.CodeEditor), { ssr: false, loading: () => <EditorLoading /> });

type MonacoApi = typeof import("monaco-editor");

interface Base {
  hash: string;
  content: string;
}

function useModifierLabel() {
  const [label, setLabel] = useState("Ctrl");
  useEffect(() => {
    if (/Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent)) setLabel("⌘");
  }, []);
  return label;
}

export function FileEditor({
  runId,
  path,
  active,
  canEdit,
  readOnlyReason,
  onDirtyChange,
}: {
  runId: string;
  path: string;
  active: boolean;
  canEdit: boolean;
  readOnlyReason: string;
  onDirtyChange(dirty: boolean): void;
}) {
  const utils = trpc.useUtils();
  const file = trpc.files.read.useQuery({ runId, path }, { retry: false, staleTime: 0, enabled: active });
  const save = trpc.files.save.useMutation();
  const mod = useModifierLabel();

  const editorRef = useRef<CodeEditorHandle | null>(null);
  const base = useRef<Base | null>(null);
  const savedVersion = useRef(0);
  const [initial, setInitial] = useState<string | null>(null);
  const [dirty, setDirty] = useState(false);
  const dirtyRef = useRef(false);
  const [conflict, setConflict] = useState<string | null>(null);
  const [changedOnDisk, setChangedOnDisk] = useState(false);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [savedNote, setSavedNote] = useState(false);

  const markDirty = useCallback(
    (value: boolean) => {
      dirtyRef.current = value;
      setDirty(value);
      onDirtyChange(value);
    },
    [onDirtyChange],
  );
  useEffect(() => () => onDirtyChange(false), [onDirtyChange]);

  /** Puts a version from disk into the editor, keeping the cursor and scroll position. */
  const apply = useCallback(
    (data: Base) => {
      base.current = { hash: data.hash, content: data.content };
      const editor = editorRef.current;
      const model = editor?.getModel();
      if (editor && model) {
        if (model.getValue() !== data.content) {
          const view = editor.saveViewState();
          model.setValue(data.content);
          if (view) editor.restoreViewState(view);
        }
        savedVersion.current = model.getAlternativeVersionId();
      }
      markDirty(false);
      setConflict(null);
      setChangedOnDisk(false);
    },
    [markDirty],
  );

  // The first version loaded becomes the editor's content; a newer one (the
  // agent wrote the file) replaces it only while there are no unsaved edits.
  useEffect(() => {
    const data = file.data;
    if (!data) return;
    if (!base.current) {
      base.current = { hash: data.hash, content: data.content };
      setInitial(data.content);
      return;
    }
    if (data.hash === base.current.hash) return;
    if (dirtyRef.current) setChangedOnDisk(true);
    else apply(data);
  }, [file.data, apply]);

  const doSave = useCallback(
    (overwrite = false) => {
      const editor = editorRef.current;
      const model = editor?.getModel();
      // Nothing to save (Ctrl+S on a clean file) is not an edit worth an event in the timeline.
      if (!canEdit || !editor || !model || !base.current || save.isPending || (!overwrite && !dirtyRef.current)) return;
      const content = model.getValue();
      if (content.length > MAX_TEXT_BYTES) {
        setSaveError(`The file is ${formatFileSize(content.length)} now; files up to 2 MB can be saved here.`);
        return;
      }
      const version = model.getAlternativeVersionId();
      setSaveError(null);
      save.mutate(
        { runId, path, content, expectedHash: overwrite ? undefined : base.current.hash },
        {
          onSuccess(result) {
            base.current = { hash: result.hash, content };
            savedVersion.current = version;
            markDirty(model.getAlternativeVersionId() !== version);
            setConflict(null);
            setChangedOnDisk(false);
            setSavedNote(true);
            utils.files.read.setData({ runId, path }, (old) => (old ? { ...old, content, hash: result.hash, size: result.bytes } : old));
            void utils.files.diff.invalidate({ runId });
            void utils.files.tree.invalidate({ runId });
          },
          onError(err) {
            if (errorCode(err) === "CONFLICT") setConflict(errorMessage(err));
            else setSaveError(`Not saved: ${errorMessage(err)}`);
          },
        },
      );
    },
    [canEdit, markDirty, path, runId, save, utils],
  );
  const saveRef = useRef(doSave);
  saveRef.current = doSave;
  const activeRef = useRef(active);
  activeRef.current = active;

  const reload = useCallback(async () => {
    setSaveError(null);
    const result = await file.refetch();
    if (result.data) apply(result.data);
  }, [apply, file]);

  useEffect(() => {
    if (!savedNote) return;
    const t = setTimeout(() => setSavedNote(false), 2500);
    return () => clearTimeout(t);
  }, [savedNote]);

  // Ctrl/Cmd+S also saves while focus is elsewhere in this tab (the tree, a button).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || !(e.ctrlKey || e.metaKey) || e.key.toLowerCase() !== "s" || e.altKey || e.shiftKey) return;
      if (!activeRef.current || document.querySelector("dialog[open]")) return;
      e.preventDefault();
      saveRef.current();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  // Leaving the page with unsaved edits asks first.
  useEffect(() => {
    if (!dirty) return;
    const warn = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = "";
    };
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, [dirty]);

  const onMount = useCallback((editor: CodeEditorHandle, api: MonacoApi) => {
    editorRef.current = editor;
    savedVersion.current = editor.getModel()?.getAlternativeVersionId() ?? 0;
    editor.addCommand(api.KeyMod.CtrlCmd | api.KeyCode.KeyS, () => saveRef.current());
  }, []);

  const onChange = useCallback(() => {
    const model = editorRef.current?.getModel();
    if (model) markDirty(model.getAlternativeVersionId() !== savedVersion.current);
  }, [markDirty]);

  const slash = path.lastIndexOf("/");
  const loadFailed = file.isError && initial === null;
  const gone = file.isError && initial !== null && errorCode(file.error) === "NOT_FOUND";

  return (
    <section className="editor-pane" aria-label={`File ${path}`} data-testid="file-editor" data-path={path} data-dirty={dirty}>
      <div className="editor-toolbar">
        <span className="tree-icon" aria-hidden="true">
          <FileIcon />
        </span>
        <span className="editor-path" title={path} data-testid="editor-path">
          {slash >= 0 && <span className="muted">{path.slice(0, slash + 1)}</span>}
          <strong>{path.slice(slash + 1)}</strong>
        </span>
        {dirty && (
          <span className="dirty-note" title="Unsaved changes" data-testid="dirty-indicator">
            <span className="dirty-dot" aria-hidden="true" /> Unsaved
          </span>
        )}
        {savedNote && !dirty && (
          <span className="saved-note" role="status" data-testid="saved-note">
            ✓ Saved
          </span>
        )}
        <span className="spacer" />
        {file.data && <span className="muted small">{formatFileSize(file.data.size)}</span>}
        {canEdit ? (
          <button
            type="button"
            className="btn btn-primary btn-sm"
            onClick={() => doSave()}
            disabled={!dirty || save.isPending || initial === null}
            title={`Save (${mod}+S)`}
            data-testid="save-file"
          >
            {save.isPending && <span className="spinner" aria-hidden="true" />}
            Save <kbd>{mod}+S</kbd>
          </button>
        ) : (
          <span className="badge badge-outline" title={readOnlyReason} data-testid="read-only">
            Read-only
          </span>
        )}
      </div>

      {conflict && (
        <div className="alert alert-warn editor-alert" role="alert" data-testid="save-conflict">
          <span style={{ flex: 1 }}>{conflict}</span>
          <button
            type="button"
            className="btn btn-sm"
            onClick={reload}
            title="Load the version in the workspace; your unsaved edits are discarded"
            data-testid="conflict-reload"
          >
            Reload
          </button>
          <button
            type="button"
            className="btn btn-sm btn-danger"
            onClick={() => doSave(true)}
            title="Replace the version in the workspace with yours"
            data-testid="conflict-overwrite"
          >
            Overwrite
          </button>
        </div>
      )}
      {changedOnDisk && !conflict && (
        <div className="alert alert-info editor-alert" role="status" data-testid="changed-on-disk">
          <span style={{ flex: 1 }}>This file changed in the workspace while you were editing it.</span>
          <button
            type="button"
            className="btn btn-sm"
            onClick={reload}
            title="Load the version in the workspace; your unsaved edits are discarded"
          >
            Reload
          </button>
        </div>
      )}
      {gone && (
        <div className="alert alert-warn editor-alert" role="status">
          {path} no longer exists in the workspace.
        </div>
      )}
      <ErrorBlock message={saveError} className="editor-alert" testId="save-error" />

      <div className="editor-host">
        {loadFailed ? (
          <ErrorState
            title={errorCode(file.error) === "NOT_FOUND" ? "File not found" : "This file cannot be opened here"}
            message={errorMessage(file.error)}
            onRetry={
              ["NOT_FOUND", "UNPROCESSABLE_CONTENT", "PAYLOAD_TOO_LARGE", "BAD_REQUEST"].includes(errorCode(file.error) ?? "")
                ? undefined
                : () => file.refetch()
            }
          />
        ) : initial === null ? (
          <EditorLoading />
        ) : (
          <CodeEditor path={path} initialValue={initial} readOnly={!canEdit} onMount={onMount} onChange={onChange} />
        )}
      </div>
    </section>
  );
}
