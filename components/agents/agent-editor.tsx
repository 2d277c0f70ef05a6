"use client";
// The agent editor (/agents/new, /agents/NAME): the spec's fields checked as
// they are edited, saved as a new version with a change note (Ctrl/Cmd+S),
// its versions compared and rolled back, and the draft tried on a goal with
// the run beside it. Built-in agents are read-only: copying is how to change them.
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { NewRunButton } from "@/components/new-run";
import { RequireRole } from "@/components/require-role";
import { PageShell, Skeleton, Tabs } from "@/components/ui";
import {
  DEFAULT_DRAFT,
  draftOf,
  groupProblems,
  problemsOfIssues,
  sameSpec,
  specOf,
  type AgentDraft,
  type AgentSpecFields,
  type Problem,
} from "@/lib/agent-draft";
import { useMe } from "@/lib/access";
import { errorCode, errorMessage } from "@/lib/errors";
import { issuesOf } from "@/lib/field-errors";
import { useModifierLabel } from "@/lib/keyboard";
import { trpc } from "@/lib/trpc";
import { AgentActions } from "./agent-actions";
import { AgentForm } from "./agent-form";
import { CopyButton } from "./copy-dialog";
import { ProblemsSummary } from "./problems-summary";
import { SaveDialog } from "./save-dialog";
import { TryIt } from "./try-it";
import { TryRunPane } from "./try-run-pane";
import type { AgentView } from "./types";
import { useAgentValidation } from "./use-agent-validation";
import { useTeamChoices } from "./use-team-choices";
import { VersionsPanel } from "./versions-panel";
import styles from "./agents.module.css";

export function AgentEditorPage({ name }: { name?: string }) {
  if (name === undefined) {
    return (
      <RequireRole
        role="operator"
        title="Creating agents needs the operator role"
        why="Everyone can read the agents; creating and changing them needs the operator role."
      >
        {() => <AgentEditor key="new" agent={null} />}
      </RequireRole>
    );
  }
  return <ExistingAgent name={name} />;
}

function ExistingAgent({ name }: { name: string }) {
  const agent = trpc.agents.get.useQuery({ name }, { refetchOnWindowFocus: false });
  return (
    <PageShell
      query={agent}
      loading={
        <div className="page page-wide" aria-busy="true">
          <div className="stack">
            <Skeleton width={120} />
            <Skeleton width={280} height={26} />
            <Skeleton width="70%" />
            <Skeleton height={320} />
          </div>
        </div>
      }
      failed="Could not load the agent"
      notFound={{ title: "Agent not found", message: `There is no agent ${name}, or it is visible only to a team you are not in.` }}
      frame={(problem) => (
        <div className="page page-wide">
          <div className="card" data-testid="agent-not-found">
            {problem}
            <div style={{ textAlign: "center", paddingBottom: 32 }}>
              <Link href="/agents">← Back to agents</Link>
            </div>
          </div>
        </div>
      )}
    >
      {(data) => <AgentEditor key={name} agent={data} />}
    </PageShell>
  );
}

/** The spec fields of a saved version (get answers with them and more). */
function specFieldsOf(a: AgentView): AgentSpecFields {
  return {
    name: a.name,
    description: a.description,
    instructions: a.instructions,
    model: a.model,
    taskClass: a.taskClass,
    ...(a.complexity !== undefined && a.complexity !== null ? { complexity: a.complexity } : {}),
    tools: a.tools,
    handoffs: a.handoffs,
    guardrails: a.guardrails,
    tier: a.tier,
    secrets: a.secrets,
    teamId: a.teamId,
    ...(a.hosted ? { hosted: a.hosted } : {}),
  };
}

function AgentEditor({ agent }: { agent: AgentView | null }) {
  const router = useRouter();
  const utils = trpc.useUtils();
  const { me, canOperate } = useMe();
  const teams = useTeamChoices();
  const mod = useModifierLabel();
  const create = trpc.agents.create.useMutation();
  const save = trpc.agents.save.useMutation();
  const isNew = agent === null;

  // base: the saved version the draft started from; draft: what the form holds.
  const [base, setBase] = useState<AgentView | null>(agent);
  // Only admins publish to everyone: anyone else starts in one of their teams (the one they used last, if known).
  const [fresh] = useState<AgentDraft>(() => {
    if (me?.role === "admin" || teams.length === 0) return DEFAULT_DRAFT;
    const last = (me as { lastTeamId?: string | null } | undefined)?.lastTeamId;
    return { ...DEFAULT_DRAFT, teamId: teams.find((t) => t.id === last)?.id ?? teams[0].id };
  });
  const baseDraft = useMemo(() => (base ? draftOf(specFieldsOf(base)) : fresh), [base, fresh]);
  const [draft, setDraft] = useState<AgentDraft>(baseDraft);
  const [resetKey, setResetKey] = useState(0);
  const [tab, setTab] = useState<"edit" | "versions">("edit");
  const [saveOpen, setSaveOpen] = useState(false);
  const [conflict, setConflict] = useState<string | null>(null);
  const [latestVersion, setLatestVersion] = useState<number | null>(null);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [requestProblems, setRequestProblems] = useState<Problem[]>([]);
  const [notice, setNotice] = useState<string | null>(null);
  const [runId, setRunId] = useState<string | null>(null);
  const summaryRef = useRef<HTMLDivElement>(null);

  const readOnlyReason = base?.builtIn
    ? "Built-in agents cannot be changed: copy it to make your own."
    : base?.archived
      ? "This agent is archived: unarchive it to change it."
      : !canOperate
        ? "Changing agents needs the operator role; you are a viewer."
        : null;
  const readOnly = readOnlyReason !== null;
  const dirty = !sameSpec(draft, baseDraft);
  const { spec, problems: local } = useMemo(() => specOf(draft), [draft]);
  const validation = useAgentValidation(spec, local, dirty && !readOnly);
  const problems = useMemo(() => groupProblems([...validation.problems, ...requestProblems]), [validation.problems, requestProblems]);
  const nextVersion = (latestVersion ?? base?.version ?? 0) + 1;

  const adopt = useCallback((a: AgentView) => {
    setBase(a);
    setDraft(draftOf(specFieldsOf(a)));
    setResetKey((k) => k + 1);
    setRequestProblems([]);
    setConflict(null);
    setLatestVersion(null);
  }, []);

  // A version saved elsewhere (or a rollback, an archive) replaces the form only while nothing is edited.
  const newer = agent && base && agent.version > base.version && dirty ? agent : null;
  useEffect(() => {
    if (!agent || !base || dirty) return;
    if (agent.version !== base.version || agent.archived !== base.archived) adopt(agent);
  }, [agent, base, dirty, adopt]);

  const change = useCallback((patch: Partial<AgentDraft>) => {
    setDraft((d) => ({ ...d, ...patch }));
    setRequestProblems([]);
    setNotice(null);
  }, []);

  const showProblems = useCallback(() => {
    setTab("edit");
    requestAnimationFrame(() => summaryRef.current?.scrollIntoView({ block: "nearest", behavior: "smooth" }));
  }, []);

  const requestSave = useCallback(async () => {
    if (readOnly || saveOpen || create.isPending || save.isPending) return;
    if (!isNew && !dirty) {
      setNotice("No changes to save.");
      return;
    }
    const found = await validation.checkNow();
    if (found?.length) {
      showProblems();
      return;
    }
    // When the check could not run, the save itself is checked by the server.
    setSaveError(null);
    setConflict(null);
    setSaveOpen(true);
  }, [readOnly, saveOpen, create.isPending, save.isPending, isNew, dirty, validation, showProblems]);
  const saveRef = useRef(requestSave);
  saveRef.current = requestSave;

  function onSaveFailed(err: unknown) {
    const issues = issuesOf(err);
    if (errorCode(err) === "CONFLICT") {
      setConflict(errorMessage(err));
      if (base)
        void utils.agents.get.fetch({ name: base.name }, { staleTime: 0 }).then(
          (fresh) => setLatestVersion(fresh.version),
          () => {},
        );
    } else if (issues?.length) {
      setRequestProblems(problemsOfIssues(issues));
      setSaveOpen(false);
      showProblems();
    } else {
      setSaveError(errorMessage(err));
    }
  }

  function doSave(note: string, overwrite: boolean) {
    setSaveError(null);
    if (isNew) {
      create.mutate(
        { spec, changeNote: note || undefined },
        {
          onSuccess(created) {
            utils.agents.get.setData({ name: created.name }, created);
            void utils.agents.list.invalidate();
            setSaveOpen(false);
            setBase(created); // not dirty any more: leaving asks nothing
            router.replace(`/agents/${encodeURIComponent(created.name)}`);
          },
          onError: onSaveFailed,
        },
      );
      return;
    }
    if (!base) return;
    save.mutate(
      { name: base.name, spec, changeNote: note, baseVersion: overwrite && latestVersion !== null ? latestVersion : base.version },
      {
        onSuccess(saved) {
          setSaveOpen(false);
          setBase(saved);
          setDraft(draftOf(specFieldsOf(saved)));
          setConflict(null);
          setLatestVersion(null);
          setNotice(`Saved as version ${saved.version}.`);
          utils.agents.get.setData({ name: saved.name }, saved);
          void utils.agents.versions.invalidate({ name: saved.name });
          void utils.agents.list.invalidate();
        },
        onError: onSaveFailed,
      },
    );
  }

  // Ctrl/Cmd+S saves from anywhere on the page (Monaco has its own binding that calls the same).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || !(e.ctrlKey || e.metaKey) || e.key.toLowerCase() !== "s" || e.altKey || e.shiftKey) return;
      e.preventDefault();
      if (document.querySelector("dialog[open]")) return;
      void saveRef.current();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  useEffect(() => {
    if (!dirty || readOnly) return;
    const warn = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = "";
    };
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, [dirty, readOnly]);

  useEffect(() => {
    if (!notice) return;
    const t = setTimeout(() => setNotice(null), 5000);
    return () => clearTimeout(t);
  }, [notice]);

  const saving = create.isPending || save.isPending;
  const tryBlocked = problems.count > 0 ? "Fix the problems first." : null;

  return (
    <div className="page page-wide" data-testid="agent-editor" data-agent={base?.name ?? ""}>
      <div className="page-header">
        <div className="page-title-block" style={{ flex: 1, minWidth: 0 }}>
          <Link href="/agents" className="small">
            ← Agents
          </Link>
          <div className="row" style={{ flexWrap: "wrap" }}>
            <h1 style={base ? { fontFamily: "var(--mono)" } : undefined}>{base ? base.name : "New agent"}</h1>
            {base && (
              <span className="badge badge-outline" data-testid="agent-version-badge">
                v{base.version}
              </span>
            )}
            {base?.builtIn && <span className="badge badge-role">Built-in</span>}
            {base?.archived && <span className="badge">Archived</span>}
            {base && <span className="badge badge-outline">{base.team ? `Team ${base.team.name}` : "Everyone"}</span>}
            {dirty && !readOnly && (
              <span className="dirty-note" data-testid="agent-dirty">
                <span className="dirty-dot" aria-hidden="true" /> Unsaved changes
              </span>
            )}
            {notice && (
              <span className="saved-note" role="status" data-testid="agent-notice">
                {notice}
              </span>
            )}
          </div>
          {base && (
            <p className="small">
              {base.changeNote ? `“${base.changeNote}”` : "No change note"}
              {base.createdBy ? ` · saved by ${base.createdBy}` : ""}
            </p>
          )}
        </div>
        {base && !base.archived && <NewRunButton agent={base.name} label="Run saved version" testId="agent-launch" primary={false} />}
        {base && (
          <AgentActions agent={base} canOperate={canOperate} onArchived={(archived) => setBase((b) => (b ? { ...b, archived } : b))} />
        )}
        {!readOnly && (
          <button
            type="button"
            className="btn btn-primary"
            onClick={() => void requestSave()}
            disabled={saving || (!isNew && !dirty)}
            title={!isNew && !dirty ? "No changes to save" : `Save (${mod}+S)`}
            data-testid="agent-save"
          >
            {saving && <span className="spinner" aria-hidden="true" />}
            Save as version {isNew ? 1 : nextVersion} <kbd>{mod}+S</kbd>
          </button>
        )}
      </div>

      {readOnlyReason && base && (
        <div
          className={`alert ${base.builtIn ? "alert-info" : "alert-warn"} ${styles.readOnlyNote}`}
          role="status"
          data-testid="agent-read-only"
          style={{ marginBottom: 16 }}
        >
          <span style={{ flex: 1 }}>{readOnlyReason}</span>
          {base.builtIn && canOperate && <CopyButton name={base.name} label="Copy to edit" primary testId="agent-copy-to-edit" />}
        </div>
      )}
      {newer && (
        <div className="alert alert-info" role="status" data-testid="agent-newer" style={{ marginBottom: 16 }}>
          <span style={{ flex: 1 }}>
            Version {newer.version} was saved{newer.createdBy ? ` by ${newer.createdBy}` : ""} while you were editing.
          </span>
          <button type="button" className="btn btn-sm" onClick={() => adopt(newer)} title="Your unsaved edits are discarded">
            Load v{newer.version}
          </button>
        </div>
      )}

      {base && (
        <Tabs
          tabs={[
            { id: "edit", label: readOnly ? "Spec" : "Edit", testId: "agent-tab-edit" },
            { id: "versions", label: `Versions (${base.version})`, testId: "agent-tab-versions" },
          ]}
          active={tab}
          onSelect={setTab}
          label="Agent views"
          style={{ marginBottom: 16 }}
        />
      )}

      {tab === "versions" && base ? (
        <VersionsPanel
          name={base.name}
          latest={base.version}
          canRollBack={readOnlyReason}
          dirty={dirty}
          onRolledBack={(a) => {
            adopt(a);
            utils.agents.get.setData({ name: a.name }, a);
            setNotice(`Rolled back: saved as version ${a.version}.`);
          }}
        />
      ) : (
        <div className={`${styles.layout} ${runId ? styles.layoutWithRun : ""}`}>
          <div className="stack" style={{ minWidth: 0 }}>
            <div ref={summaryRef}>
              <ProblemsSummary
                problems={problems}
                title={problems.count === 1 ? "1 problem to fix before saving:" : `${problems.count} problems to fix before saving:`}
              />
            </div>
            {validation.failure && (
              <div className="alert alert-warn" role="status">
                Could not check the draft: {validation.failure}
              </div>
            )}
            <AgentForm
              draft={draft}
              onChange={change}
              isNew={isNew}
              readOnly={readOnly}
              problems={problems}
              savedTeam={base?.team ?? null}
              resetKey={resetKey}
              onSave={() => void saveRef.current()}
            />
          </div>
          <div className={styles.side}>
            {!readOnly && (
              <TryIt
                spec={spec}
                blocked={tryBlocked}
                onStarted={setRunId}
                onProblems={(found) => {
                  setRequestProblems(found);
                  showProblems();
                }}
              />
            )}
            {runId && <TryRunPane key={runId} runId={runId} onClose={() => setRunId(null)} />}
          </div>
        </div>
      )}

      <SaveDialog
        open={saveOpen}
        version={isNew ? 1 : nextVersion}
        isNew={isNew}
        busy={saving}
        error={saveError}
        conflict={conflict}
        onSave={doSave}
        onClose={() => {
          setSaveOpen(false);
          setConflict(null);
        }}
      />
    </div>
  );
}
