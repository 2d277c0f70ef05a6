"use client";
// Settings › Policy (admins): the active policy as a list of rules with a
// form each, or as YAML (both edit the same text), checked as you type,
// previewed against sample calls, saved as a new version with a comment
// (docs/human-requests-and-policy.md#settings--policy).
import { useCallback, useEffect, useRef, useState } from "react";
import { ErrorBlock, ErrorState, Skeleton, TabPanel, Tabs } from "@/components/ui";
import { RequireRole } from "@/components/require-role";
import { errorCode, errorMessage } from "@/lib/errors";
import { formatDateTime, formatRelative } from "@/lib/format";
import { trpc } from "@/lib/trpc";
import { PolicyEditor, type PolicyEditorHandle } from "./policy-editor";
import { PreviewForm } from "./preview-form";
import { RuleList } from "./rule-list";
import { SuggestedRules } from "./suggested-rules";
import { usePolicyViews, VIEWS } from "./use-policy-views";
import { useValidation } from "./use-validation";
import { ValidationPanel } from "./validation-panel";
import { VersionHistory } from "./version-history";
import styles from "./policy.module.css";

export function PolicyPage() {
  return (
    <RequireRole
      role="admin"
      title="The policy needs the admin role"
      why="Only admins can read and change the tool policy. Ask an admin if a rule should change."
    >
      {(me) => <PolicyWorkspace email={me.email} />}
    </RequireRole>
  );
}

interface Base {
  version: number;
  source: string;
}

function useModifierLabel() {
  const [label, setLabel] = useState("Ctrl");
  useEffect(() => {
    if (/Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent)) setLabel("⌘");
  }, []);
  return label;
}

function PolicyWorkspace({ email }: { email: string }) {
  const utils = trpc.useUtils();
  const active = trpc.policy.active.useQuery(undefined, { refetchInterval: 30_000 });
  const save = trpc.policy.save.useMutation();
  const mod = useModifierLabel();
  const editor = useRef<PolicyEditorHandle>(null);

  // base: the saved version the draft started from; draft: the editor's text.
  const [base, setBase] = useState<Base | null>(null);
  const [draft, setDraft] = useState<string | null>(null);
  const [comment, setComment] = useState("");
  const [conflict, setConflict] = useState<string | null>(null);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [savedNote, setSavedNote] = useState<string | null>(null);
  const dirty = base !== null && draft !== null && draft !== base.source;
  const validation = useValidation(draft);

  const { view, yamlLoaded, choose, onEditorText, syncEditor, showLine, replaceDraft, editorText } = usePolicyViews(
    editor,
    draft,
    setDraft,
  );

  const adopt = useCallback(
    (v: Base) => {
      setBase({ version: v.version, source: v.source });
      setConflict(null);
      replaceDraft(v.source, false);
    },
    [replaceDraft],
  );

  // The first load fills the editor; a newer version saved elsewhere replaces
  // the text only while there are no unsaved edits.
  useEffect(() => {
    const data = active.data;
    if (!data) return;
    if (!base) {
      setBase({ version: data.version, source: data.source });
      setDraft(data.source);
    } else if (data.version > base.version && !dirty) {
      adopt(data);
    }
  }, [active.data, base, dirty, adopt]);

  const doSave = useCallback(
    (overwrite = false) => {
      if (!base || draft === null || save.isPending) return;
      if (!dirty && !overwrite) return;
      setSaveError(null);
      setSavedNote(null);
      const source = draft;
      save.mutate(
        { source, comment, baseVersion: overwrite ? active.data?.version : base.version },
        {
          onSuccess(saved) {
            setBase({ version: saved.version, source: saved.source });
            setComment("");
            setConflict(null);
            setSavedNote(`Saved as version ${saved.version}`);
            utils.policy.active.setData(undefined, saved);
            void utils.policy.versions.invalidate();
            void utils.audit.list.invalidate();
          },
          onError(err) {
            if (errorCode(err) === "CONFLICT") {
              setConflict(errorMessage(err));
              void active.refetch();
            } else setSaveError(errorMessage(err));
          },
        },
      );
    },
    [active, base, comment, dirty, draft, save, utils],
  );
  const saveRef = useRef(doSave);
  saveRef.current = doSave;

  // Ctrl/Cmd+S also saves while focus is outside the editor (the comment field).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || !(e.ctrlKey || e.metaKey) || e.key.toLowerCase() !== "s" || e.altKey || e.shiftKey) return;
      if (document.querySelector("dialog[open]")) return;
      e.preventDefault();
      saveRef.current();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  useEffect(() => {
    if (!dirty) return;
    const warn = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = "";
    };
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, [dirty]);

  useEffect(() => {
    if (!savedNote) return;
    const t = setTimeout(() => setSavedNote(null), 4000);
    return () => clearTimeout(t);
  }, [savedNote]);

  const loadVersion = useCallback((_version: number, source: string) => replaceDraft(source, true), [replaceDraft]);

  if (active.isError && !base) {
    return (
      <div className="page">
        <ErrorState title="Could not load the policy" message={errorMessage(active.error)} onRetry={() => active.refetch()} />
      </div>
    );
  }

  const newer = active.data && base && active.data.version > base.version && dirty ? active.data : null;
  const canSave = dirty && !save.isPending && !validation.invalid;

  return (
    <div className="page" data-testid="policy-page">
      <div className="page-header">
        <div className="page-title-block">
          <h1>Policy</h1>
          <p>
            Decides every tool call before it runs: allow, deny, or ask a human. Actor rules first, then team, tool and environment;
            otherwise denied.
          </p>
        </div>
      </div>

      <div className={styles.layout}>
        <section className={`card ${styles.editorCard}`} aria-label="Policy editor">
          <div className="editor-toolbar">
            <Tabs
              tabs={VIEWS}
              active={view}
              onSelect={choose}
              label="Policy views"
              tabId={(id) => `policy-tab-${id}`}
              panelId={(id) => `policy-panel-${id}`}
              className={`run-tabs ${styles.viewTabs}`}
            />
            {active.data ? (
              <span className="small muted" data-testid="policy-active-version">
                editing v{base?.version ?? active.data.version}
                {active.data.createdBy && ` · saved by ${active.data.createdBy.name}`} ·{" "}
                <span title={formatDateTime(active.data.createdAt)}>{formatRelative(active.data.createdAt)}</span>
              </span>
            ) : (
              <Skeleton width={160} />
            )}
            {dirty && (
              <span className="dirty-note" title="Unsaved changes" data-testid="policy-dirty">
                <span className="dirty-dot" aria-hidden="true" /> Unsaved changes
              </span>
            )}
            {savedNote && !dirty && (
              <span className="saved-note" role="status" data-testid="policy-saved">
                ✓ {savedNote}
              </span>
            )}
            <span className="spacer" />
            <button
              type="button"
              className="btn btn-sm"
              onClick={validation.checkNow}
              disabled={draft === null}
              data-testid="policy-validate"
            >
              Validate
            </button>
          </div>
          {newer && (
            <div className="alert alert-info editor-alert" role="status" data-testid="policy-newer">
              <span style={{ flex: 1 }}>
                Version {newer.version} was saved{newer.createdBy ? ` by ${newer.createdBy.name}` : ""} while you were editing.
              </span>
              <button type="button" className="btn btn-sm" onClick={() => adopt(newer)} title="Your unsaved edits are discarded">
                Load v{newer.version}
              </button>
            </div>
          )}
          <TabPanel
            id="policy-panel-rules"
            labelledBy="policy-tab-rules"
            hidden={view !== "rules"}
            className={`run-tab-panel ${styles.rulesBody}`}
          >
            <RuleList
              source={base ? draft : null}
              errors={validation.errors}
              warnings={validation.warnings}
              onChange={setDraft}
              onShowLine={showLine}
            />
          </TabPanel>
          <TabPanel id="policy-panel-yaml" labelledBy="policy-tab-yaml" hidden={view !== "yaml"} className="run-tab-panel">
            <div className={styles.editorBody}>
              {draft === null || !base ? (
                <div className="editor-loading" role="status">
                  <span className="spinner" aria-hidden="true" /> Loading the policy…
                </div>
              ) : yamlLoaded ? (
                <PolicyEditor
                  initialValue={draft}
                  errors={validation.errors}
                  warnings={validation.warnings}
                  onChange={onEditorText}
                  onSave={() => saveRef.current()}
                  onReady={(text) => {
                    editorText.current = text;
                    syncEditor();
                  }}
                  handleRef={editor}
                />
              ) : null}
            </div>
          </TabPanel>
          <ValidationPanel state={validation.state} onGoTo={showLine} />
        </section>

        <div className={styles.side}>
          <section className="card" aria-labelledby="policy-save-title">
            <div className="card-header">
              <h2 id="policy-save-title">Save</h2>
            </div>
            <form
              className="card-body stack"
              onSubmit={(e) => {
                e.preventDefault();
                doSave();
              }}
            >
              <div className="field">
                <label htmlFor="policy-comment">Comment</label>
                <input
                  id="policy-comment"
                  className="input"
                  value={comment}
                  maxLength={500}
                  onChange={(e) => setComment(e.target.value)}
                  placeholder="What changed and why"
                  data-testid="policy-comment"
                />
              </div>
              {conflict && (
                <div className="alert alert-warn" role="alert" data-testid="policy-conflict">
                  <span style={{ flex: 1 }}>{conflict}</span>
                  <button
                    type="button"
                    className="btn btn-sm btn-danger"
                    onClick={() => doSave(true)}
                    title="Save your text as the next version anyway"
                  >
                    Save over it
                  </button>
                </div>
              )}
              <ErrorBlock message={saveError} testId="policy-save-error" />
              <div className="row">
                <button
                  type="submit"
                  className="btn btn-primary"
                  disabled={!canSave}
                  title={validation.invalid ? "Fix the errors first" : !dirty ? "No changes to save" : `Save (${mod}+S)`}
                  data-testid="policy-save"
                >
                  {save.isPending && <span className="spinner" aria-hidden="true" />}
                  Save as v{(active.data?.version ?? base?.version ?? 0) + 1} <kbd>{mod}+S</kbd>
                </button>
                {dirty && base && (
                  <button
                    type="button"
                    className="btn btn-ghost btn-sm"
                    onClick={() => replaceDraft(base.source, true)}
                    data-testid="policy-revert"
                  >
                    Discard changes
                  </button>
                )}
              </div>
              <p className="hint" style={{ margin: 0 }}>
                Saving makes it the active policy for every new tool call and records it in the audit log.
              </p>
            </form>
          </section>

          <SuggestedRules onAdded={(version) => setSavedNote(`Suggested rule added as version ${version}`)} />

          <section className="card" aria-labelledby="policy-preview-title">
            <div className="card-header">
              <h2 id="policy-preview-title">Preview</h2>
            </div>
            <PreviewForm source={draft ?? ""} defaultEmail={email} />
          </section>

          <section className="card" aria-labelledby="policy-history-title">
            <div className="card-header">
              <h2 id="policy-history-title">History</h2>
            </div>
            <VersionHistory activeVersion={active.data?.version ?? null} editingVersion={base?.version ?? null} onLoad={loadVersion} />
          </section>
        </div>
      </div>
    </div>
  );
}
