"use client";
// Which view of the policy is shown, and keeping the two in step. The rule
// list is the default, the YAML for those who choose it (remembered). Monaco
// loads the first time the YAML is shown and then stays, hidden, so its undo
// history survives switching; it is brought up to date on showing.
import { useCallback, useEffect, useRef, useState, type RefObject } from "react";
import type { PolicyEditorHandle } from "./policy-editor";

export type View = "rules" | "yaml";
export const VIEWS = [
  { id: "rules", label: "Rules", testId: "policy-view-rules" },
  { id: "yaml", label: "YAML", testId: "policy-view-yaml", title: "policy.yaml: the same document as text" },
] as const;
const VIEW_KEY = "rein.policy.view";

export function usePolicyViews(editor: RefObject<PolicyEditorHandle | null>, draft: string | null, setDraft: (source: string) => void) {
  const [view, setView] = useState<View>("rules");
  const [yamlLoaded, setYamlLoaded] = useState(false);
  const editorText = useRef<string | null>(null);
  const pendingLine = useRef<number | null>(null);
  useEffect(() => {
    if (localStorage.getItem(VIEW_KEY) === "yaml") {
      setView("yaml");
      setYamlLoaded(true);
    }
  }, []);
  const choose = useCallback((next: View) => {
    setView(next);
    if (next === "yaml") setYamlLoaded(true);
    localStorage.setItem(VIEW_KEY, next);
  }, []);
  const onEditorText = useCallback(
    (text: string) => {
      editorText.current = text;
      setDraft(text);
    },
    [setDraft],
  );
  const syncEditor = useCallback(() => {
    const handle = editor.current;
    if (!handle) return;
    if (draft !== null && editorText.current !== null && editorText.current !== draft) handle.setValue(draft, true);
    if (pendingLine.current !== null) {
      handle.revealLine(pendingLine.current);
      pendingLine.current = null;
    }
  }, [draft, editor]);
  useEffect(() => {
    if (view === "yaml") syncEditor();
    // Only on showing the YAML: while it is shown, Monaco is where the text changes.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [view]);
  const showLine = useCallback(
    (line?: number) => {
      pendingLine.current = line ?? null;
      if (view === "yaml") syncEditor();
      else choose("yaml");
    },
    [choose, syncEditor, view],
  );

  /** Replaces the draft from outside both views (revert, a version, a newer save): undoable in the YAML. */
  const replaceDraft = useCallback(
    (source: string, undoable: boolean) => {
      if (editor.current) editor.current.setValue(source, undoable);
      else setDraft(source);
    },
    [editor, setDraft],
  );

  return { view, yamlLoaded, choose, onEditorText, syncEditor, showLine, replaceDraft, editorText };
}
