"use client";
// New change: an agent launched on a worktree of a repository (changes.start).
// The demo (demo-service with demo-fix) is chosen when both exist, with its goal.
import { useRouter } from "next/navigation";
import { useEffect, useId, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import { Dialog, ErrorBlock, FieldError, StartDialogFooter } from "@/components/ui";
import { OPERATOR_HINT, useMe } from "@/lib/access";
import { errorsOf, type FieldErrors } from "@/lib/field-errors";
import { trpc } from "@/lib/trpc";
import { DEMO_AGENT, DEMO_GOAL, DEMO_REPOSITORY, changeHref } from "./format";

/** Rein starts the improver itself; it never writes a change to a repository. */
const STARTED_BY_REIN = new Set(["improver"]);
const FIELDS = ["repositoryId", "agent", "goal"] as const;
type Field = (typeof FIELDS)[number];
const NO_ERRORS: FieldErrors<Field> = { fields: {}, other: null };

export function NewChangeButton({ demo = false }: { demo?: boolean }) {
  const [open, setOpen] = useState(false);
  const { canOperate, isLoading } = useMe();
  return (
    <>
      <button
        type="button"
        className={`btn${demo ? "" : " btn-primary"}`}
        onClick={() => setOpen(true)}
        disabled={isLoading || !canOperate}
        title={isLoading ? undefined : canOperate ? "Launch an agent on a repository" : `${OPERATOR_HINT}; you are a viewer`}
        data-testid={demo ? "new-change-demo" : "new-change"}
      >
        {!demo && (
          <span aria-hidden="true" style={{ fontSize: 16, lineHeight: 1 }}>
            +
          </span>
        )}
        {demo ? "Start the demo change" : "New change"}
      </button>
      <Dialog open={open} onClose={() => setOpen(false)} labelledBy="new-change-title" testId="new-change-dialog">
        <NewChangeForm onClose={() => setOpen(false)} />
      </Dialog>
    </>
  );
}

function NewChangeForm({ onClose }: { onClose(): void }) {
  const id = useId();
  const router = useRouter();
  const utils = trpc.useUtils();
  const repositories = trpc.repositories.list.useQuery(undefined, { staleTime: 30_000 });
  const agents = trpc.agents.list.useQuery(undefined, { staleTime: 60_000 });
  const [repositoryId, setRepositoryId] = useState("");
  const [agent, setAgent] = useState("");
  const [goal, setGoal] = useState("");
  const [goalEdited, setGoalEdited] = useState(false);
  const [errors, setErrors] = useState(NO_ERRORS);
  const goalRef = useRef<HTMLTextAreaElement>(null);
  const start = trpc.changes.start.useMutation({
    onSuccess: (change) => {
      // The change's page shows it at once, then polls while the agent works.
      utils.changes.get.setData({ id: change.id }, change);
      void utils.changes.list.invalidate();
      onClose();
      router.push(changeHref(change.id));
    },
    onError: (err) => setErrors(errorsOf(err, FIELDS)),
  });

  const agentList = useMemo(() => (agents.data ?? []).filter((a) => !STARTED_BY_REIN.has(a.name)), [agents.data]);
  const repository = repositories.data?.find((r) => r.id === repositoryId);
  const isDemo = repository?.name === DEMO_REPOSITORY && agent === DEMO_AGENT;

  // Defaults once the lists arrive: the demo repository and agent when they exist.
  useEffect(() => {
    if (!repositoryId && repositories.data?.length)
      setRepositoryId((repositories.data.find((r) => r.name === DEMO_REPOSITORY) ?? repositories.data[0]).id);
  }, [repositoryId, repositories.data]);
  useEffect(() => {
    if (!agent && agentList.length) setAgent((agentList.find((a) => a.name === DEMO_AGENT) ?? agentList[0]).name);
  }, [agent, agentList]);
  // The demo's goal, while the person has not written one of their own.
  useEffect(() => {
    if (goalEdited) return;
    setGoal(isDemo ? DEMO_GOAL : "");
  }, [isDemo, goalEdited]);

  function submit() {
    if (start.isPending) return;
    const fields: Partial<Record<Field, string>> = {};
    if (!repositoryId) fields.repositoryId = "Choose a repository";
    if (!agent) fields.agent = "Choose an agent";
    if (!goal.trim()) fields.goal = "Say what the change should do";
    setErrors({ fields, other: null });
    if (Object.keys(fields).length) {
      if (fields.goal) goalRef.current?.focus();
      return;
    }
    start.mutate({ repositoryId, agent, goal: goal.trim() });
  }

  const onSubmit = (e: FormEvent) => (e.preventDefault(), submit());
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) (e.preventDefault(), submit());
  };
  const fieldError = (f: Field) =>
    errors.fields[f] ? <FieldError message={errors.fields[f]} testId={`new-change-${f}-error`} live /> : null;
  const clearError = (f: Field) => setErrors((x) => ({ ...x, fields: { ...x.fields, [f]: undefined } }));

  return (
    <form className="dialog-form" onSubmit={onSubmit} onKeyDown={onKeyDown} noValidate data-testid="new-change-form">
      <div className="dialog-header">
        <div>
          <h2 id="new-change-title">New change</h2>
          <p>
            An agent works on a branch of its own in a worktree of the repository, then proposes its change: the tests run, and an approver
            merges it or not.
          </p>
        </div>
      </div>
      <div className="dialog-body">
        <div className="field">
          <label htmlFor={`${id}-repository`}>Repository</label>
          {repositories.isError ? (
            <ErrorBlock prefix="Could not load the repositories" error={repositories.error} onRetry={() => void repositories.refetch()} />
          ) : repositories.data?.length === 0 ? (
            <div className="alert alert-info">No repository is registered. An admin registers one in Settings › Repositories.</div>
          ) : (
            <select
              id={`${id}-repository`}
              className="select"
              value={repositoryId}
              disabled={repositories.isLoading}
              onChange={(e) => (setRepositoryId(e.target.value), clearError("repositoryId"))}
              aria-invalid={errors.fields.repositoryId ? true : undefined}
              data-testid="new-change-repository"
            >
              {repositories.isLoading && <option value="">Loading repositories…</option>}
              {repositories.data?.map((r) => (
                <option key={r.id} value={r.id}>
                  {r.name}
                </option>
              ))}
            </select>
          )}
          {fieldError("repositoryId") ??
            (repository && (
              <span className="hint">
                Branch {repository.defaultBranch}; its tests: <code>{repository.testCommand}</code>
              </span>
            ))}
        </div>
        <div className="field">
          <label htmlFor={`${id}-agent`}>Agent</label>
          {agents.isError ? (
            <ErrorBlock prefix="Could not load the agents" error={agents.error} onRetry={() => void agents.refetch()} />
          ) : (
            <select
              id={`${id}-agent`}
              className="select"
              value={agent}
              disabled={agents.isLoading}
              onChange={(e) => (setAgent(e.target.value), clearError("agent"))}
              aria-invalid={errors.fields.agent ? true : undefined}
              data-testid="new-change-agent"
            >
              {agents.isLoading && <option value="">Loading agents…</option>}
              {agentList.map((a) => (
                <option key={a.name} value={a.name}>
                  {a.name} (v{a.version})
                </option>
              ))}
            </select>
          )}
          {fieldError("agent") ?? <span className="hint">It needs the propose_change tool to open the change request.</span>}
        </div>
        <div className="field">
          <label htmlFor={`${id}-goal`}>Goal</label>
          <textarea
            id={`${id}-goal`}
            ref={goalRef}
            data-autofocus
            className="textarea"
            rows={4}
            value={goal}
            placeholder="What should the change do?"
            onChange={(e) => (setGoal(e.target.value), setGoalEdited(true), clearError("goal"))}
            aria-invalid={errors.fields.goal ? true : undefined}
            data-testid="new-change-goal"
          />
          {fieldError("goal") ??
            (isDemo && <span className="hint">The demo: the agent fixes the one failing test of {DEMO_REPOSITORY}.</span>)}
        </div>
        <ErrorBlock message={errors.other} testId="new-change-error" />
      </div>
      <StartDialogFooter
        onClose={onClose}
        busy={start.isPending}
        disabled={!repositories.data?.length}
        label="Start the agent"
        testId="new-change-submit"
      />
    </form>
  );
}
