"use client";
// The New run form: agent, goal, (advanced) limits — a cost ceiling and the
// model call cap —, the secrets its tools get, and a scenario for the scripted model.
import { TRPCClientError } from "@trpc/client";
import Link from "next/link";
import { useEffect, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import { ErrorBlock, FieldError, StartDialogFooter } from "@/components/ui";
import { ModelLabel } from "@/components/model-label";
import { HostedBadge } from "@/components/hosted/hosted-badge";
import { ComplexityField, ModelPicker } from "@/components/model-picker";
import { NewRunSecrets } from "@/components/new-run-secrets";
import { NewRunTags } from "@/components/new-run-tags";
import { parseTags } from "@/lib/run-tags";
import { TeamPicker, useLaunchTeam } from "@/components/team-picker";
import { OPERATOR_HINT, useMe } from "@/lib/access";
import { parseBudget } from "@/lib/budget-draft";
import { DEMO_GOALS } from "@/lib/demo-goals";
import { formatCost } from "@/lib/format";
import { DEFAULT_CALL_CAP, MAX_STEPS } from "@/lib/limits";
import { AGENT_MODEL, chosenModel, parseComplexity } from "@/lib/model-options";
import { trpc, type RouterInputs } from "@/lib/trpc";

/** Goals that fit the built-in demo agents' scripts. */
const SUGGESTED_GOALS = DEMO_GOALS;

/** The demo agent that changes a repository: it is started from Improvements › Changes, on a repository. */
const CHANGE_AGENT = "demo-fix";

/** Rein starts the improver itself, for a hack cycle (its tools refuse anywhere else). */
const STARTED_BY_REIN = new Set(["improver"]);

type ScenarioInput = NonNullable<RouterInputs["runs"]["create"]["scenario"]>;

type LimitField = "maxSteps" | "budgetUsd";
type LimitErrors = Partial<Record<LimitField, string>>;

function checkMaxSteps(text: string): { value?: number; error?: string } {
  const t = text.trim();
  if (!t) return {};
  if (!/^\d+$/.test(t)) return { error: "must be a whole number of calls, e.g. 80" };
  const n = Number(t);
  if (n < 1 || n > MAX_STEPS) return { error: `must be from 1 to ${MAX_STEPS}` };
  return { value: n };
}

/** The server's issues about the limit fields, by field; the rest stay in the alert. */
function limitIssues(err: unknown): LimitErrors {
  const issues =
    err instanceof TRPCClientError ? (err.data as { issues?: Array<{ path: string; message: string }> } | undefined)?.issues : undefined;
  const out: LimitErrors = {};
  for (const i of issues ?? []) if (i.path === "maxSteps" || i.path === "budgetUsd") out[i.path] ??= i.message;
  return out;
}

function checkScenario(text: string): { value?: ScenarioInput; error?: string } {
  if (!text.trim()) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { error: `This is not valid JSON: ${(err as Error).message}` };
  }
  if (typeof value !== "object" || value === null) {
    return { error: 'A scenario is a list of turns, or an object like {"turns": [...]}' };
  }
  return { value: value as ScenarioInput };
}

export function NewRunForm({ initialAgent, onClose, onCreated }: { initialAgent?: string; onClose(): void; onCreated(id: string): void }) {
  const agents = trpc.agents.list.useQuery(undefined, { staleTime: 60_000 });
  const { canOperate, me } = useMe();
  const launch = useLaunchTeam();
  const utils = trpc.useUtils();
  const create = trpc.runs.create.useMutation({
    onSuccess: (run) => {
      void utils.runs.list.invalidate();
      onCreated(run.id);
    },
    onError: (err) => {
      const fields = limitIssues(err);
      setLimitErrors(fields);
      if (fields.maxSteps || fields.budgetUsd) setLimitsOpen(true);
    },
  });
  const budgets = trpc.budgets.get.useQuery(undefined, { staleTime: 60_000 });
  const hosted = trpc.hosted.list.useQuery(undefined, { staleTime: 60_000 });
  const [agent, setAgent] = useState(initialAgent ?? "");
  const [goal, setGoal] = useState(initialAgent ? (SUGGESTED_GOALS[initialAgent] ?? "") : "");
  const [goalEdited, setGoalEdited] = useState(false);
  const [goalError, setGoalError] = useState<string | null>(null);
  const [advanced, setAdvanced] = useState(false);
  const [scenario, setScenario] = useState("");
  const [scenarioTouched, setScenarioTouched] = useState(false);
  const [limitsOpen, setLimitsOpen] = useState(false);
  const [maxSteps, setMaxSteps] = useState("");
  const [ceiling, setCeiling] = useState("");
  const [limitErrors, setLimitErrors] = useState<LimitErrors>({});
  const [model, setModel] = useState(AGENT_MODEL);
  const [complexity, setComplexity] = useState("");
  const [complexityError, setComplexityError] = useState<string | null>(null);
  const [secrets, setSecrets] = useState<string[]>([]);
  const [tagsText, setTagsText] = useState("");
  const [tagsError, setTagsError] = useState<string | null>(null);
  // The team the run belongs to (its budget, policies, models and who sees it): the one used last comes first.
  const { teamId } = launch;
  const goalRef = useRef<HTMLTextAreaElement>(null);

  const list = useMemo(() => (agents.data ?? []).filter((a) => !STARTED_BY_REIN.has(a.name)), [agents.data]);
  const spec = list.find((a) => a.name === agent);
  const program = hosted.data?.programs.find((p) => p.agents.includes(agent));
  const scenarioCheck = checkScenario(scenario);

  // Pick a default agent once the list arrives.
  useEffect(() => {
    if (agent || list.length === 0) return;
    const pick = list.find((a) => a.name === "demo-coder") ?? list[0];
    setAgent(pick.name);
    if (!goalEdited) setGoal(SUGGESTED_GOALS[pick.name] ?? "");
  }, [agent, list, goalEdited]);

  useEffect(() => {
    goalRef.current?.focus();
  }, []);

  function chooseAgent(name: string) {
    setAgent(name);
    if (!goalEdited || !goal.trim()) {
      setGoal(SUGGESTED_GOALS[name] ?? "");
      setGoalEdited(false);
    }
  }

  function submit() {
    if (create.isPending || !canOperate) return;
    if (!agent) return;
    // Every field is checked at once, so each error shows under its field together.
    const goalMissing = !goal.trim();
    setGoalError(goalMissing ? "Describe what the agent should achieve" : null);
    if (scenarioCheck.error) {
      setAdvanced(true);
      setScenarioTouched(true);
    }
    const level = parseComplexity(complexity);
    setComplexityError(level.ok ? null : level.error);
    const steps = checkMaxSteps(maxSteps);
    const budget = parseBudget(ceiling);
    const local: LimitErrors = { ...(steps.error ? { maxSteps: steps.error } : {}), ...(!budget.ok ? { budgetUsd: budget.error } : {}) };
    setLimitErrors(local);
    if (local.maxSteps || local.budgetUsd) setLimitsOpen(true);
    const tags = parseTags(tagsText);
    setTagsError(tags.error);
    if (goalMissing || scenarioCheck.error || !level.ok || local.maxSteps || local.budgetUsd || tags.error) {
      if (goalMissing) goalRef.current?.focus();
      return;
    }
    // Above the call cap without a ceiling goes to the server as typed: its refusal shows under the field.
    create.mutate({
      agent,
      goal: goal.trim(),
      scenario: scenarioCheck.value,
      // A scenario plays on the scripted model, whatever is picked.
      model: scenarioCheck.value ? undefined : chosenModel(model),
      complexity: level.value,
      maxSteps: steps.value,
      budgetUsd: budget.ok ? (budget.value ?? undefined) : undefined,
      secrets: secrets.length ? secrets : undefined,
      tags: tags.tags.length ? tags.tags : undefined,
      teamId,
    });
  }

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    submit();
  }

  function onKeyDown(e: KeyboardEvent) {
    if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) {
      e.preventDefault();
      submit();
    }
  }

  return (
    <form className="dialog-form" onSubmit={onSubmit} onKeyDown={onKeyDown} noValidate>
      <div className="dialog-header">
        <div>
          <h2 id="new-run-title">New run</h2>
          <p>An agent works on the goal on its own; you can watch, pause or cancel it.</p>
        </div>
      </div>
      <div className="dialog-body">
        {!canOperate && (
          <div className="alert alert-warn">
            {OPERATOR_HINT}; you are a viewer{me?.teams.length ? " in each of your teams" : ""}.
          </div>
        )}
        <TeamPicker
          inputId="new-run-team"
          launch={launch}
          hint="The run uses this team's budget, policies and models, and its members see it."
          onlyTeam={(name) => <>Runs in {name}, the only team where you may start runs.</>}
        />
        <div className="field">
          <label htmlFor="new-run-agent">Agent</label>
          {agents.isError ? (
            <ErrorBlock prefix="Could not load the agents" error={agents.error} onRetry={() => void agents.refetch()} />
          ) : (
            <select
              id="new-run-agent"
              className="select"
              value={agent}
              onChange={(e) => chooseAgent(e.target.value)}
              disabled={agents.isLoading}
              data-testid="agent-select"
            >
              {agents.isLoading && <option value="">Loading agents…</option>}
              {list.map((a) => (
                <option key={a.name} value={a.name}>
                  {a.name} (v{a.version})
                </option>
              ))}
            </select>
          )}
          {agent === CHANGE_AGENT && (
            <div className="alert alert-info" data-testid="agent-change-note">
              {CHANGE_AGENT} works on a repository, which a run started here does not have: start it from{" "}
              <Link href="/improvements/changes" onClick={onClose}>
                Improvements › Changes › New change
              </Link>
              , where you choose the repository; its fix becomes a change request an approver merges.
            </div>
          )}
          {spec && (
            <div className="hint row" style={{ flexWrap: "wrap" }} data-testid="agent-description">
              <span>{spec.description}</span>
              {program && <HostedBadge program={program.name} testId="new-run-hosted-badge" />}
              <ModelLabel model={spec.model} scripted={spec.model.startsWith("scripted")} />
            </div>
          )}
        </div>
        <div className="row" style={{ gap: 16, alignItems: "flex-start", flexWrap: "wrap" }}>
          <ModelPicker
            agentModel={spec?.model}
            value={model}
            onChange={setModel}
            disabledReason={scenarioCheck.value ? "A scenario plays on the scripted model." : null}
          />
          <ComplexityField value={complexity} error={complexityError} onChange={(v) => (setComplexity(v), setComplexityError(null))} />
        </div>
        <div className="field">
          <label htmlFor="new-run-goal">Goal</label>
          <textarea
            id="new-run-goal"
            ref={goalRef}
            data-autofocus
            className="textarea"
            rows={4}
            value={goal}
            onChange={(e) => {
              setGoal(e.target.value);
              setGoalEdited(true);
              setGoalError(null);
            }}
            placeholder="What should the agent achieve?"
            aria-invalid={goalError ? true : undefined}
            data-testid="goal-input"
          />
          <FieldError message={goalError} testId="goal-error" live />
        </div>
        <NewRunTags value={tagsText} error={tagsError} onChange={(v) => (setTagsText(v), setTagsError(null))} />
        <details className="disclosure" open={limitsOpen} onToggle={(e) => setLimitsOpen((e.target as HTMLDetailsElement).open)}>
          <summary data-testid="limits-toggle">Advanced: cost ceiling and model calls</summary>
          <div className="row" style={{ gap: 16, alignItems: "flex-start", flexWrap: "wrap" }}>
            <div className="field" style={{ width: 220 }}>
              <label htmlFor="new-run-ceiling">Cost ceiling (USD)</label>
              <input
                id="new-run-ceiling"
                className="input"
                inputMode="decimal"
                placeholder="No ceiling"
                value={ceiling}
                onChange={(e) => {
                  setCeiling(e.target.value);
                  // The call cap's refusal is about the missing ceiling too.
                  setLimitErrors({});
                  if (create.error) create.reset();
                }}
                aria-invalid={limitErrors.budgetUsd ? true : undefined}
                aria-describedby="new-run-ceiling-help"
                data-testid="ceiling-input"
              />
              {limitErrors.budgetUsd ? (
                <FieldError id="new-run-ceiling-help" message={limitErrors.budgetUsd} testId="ceiling-error" live />
              ) : (
                <span className="hint" id="new-run-ceiling-help">
                  The run stops before a model call that would cost more.
                  {budgets.data?.runBudgetUsd ? ` The default ceiling of ${formatCost(budgets.data.runBudgetUsd)} applies too.` : ""}
                </span>
              )}
            </div>
            <div className="field" style={{ width: 220 }}>
              <label htmlFor="new-run-max-steps">Max model calls</label>
              <input
                id="new-run-max-steps"
                className="input"
                inputMode="numeric"
                placeholder={String(DEFAULT_CALL_CAP)}
                value={maxSteps}
                onChange={(e) => {
                  setMaxSteps(e.target.value);
                  setLimitErrors((x) => ({ ...x, maxSteps: undefined }));
                  if (create.error) create.reset();
                }}
                aria-invalid={limitErrors.maxSteps ? true : undefined}
                aria-describedby="new-run-max-steps-help"
                data-testid="max-steps-input"
              />
              {limitErrors.maxSteps ? (
                <FieldError id="new-run-max-steps-help" message={limitErrors.maxSteps} testId="max-steps-error" live />
              ) : (
                <span className="hint" id="new-run-max-steps-help">
                  Default {DEFAULT_CALL_CAP}. More than {DEFAULT_CALL_CAP} needs a cost ceiling.
                </span>
              )}
            </div>
          </div>
        </details>
        {canOperate && <NewRunSecrets selected={secrets} onChange={setSecrets} />}
        <details className="disclosure" open={advanced} onToggle={(e) => setAdvanced((e.target as HTMLDetailsElement).open)}>
          <summary data-testid="advanced-toggle">Advanced: scenario JSON</summary>
          <div className="stack">
            <div className="field">
              <label htmlFor="new-run-scenario">Scenario</label>
              <textarea
                id="new-run-scenario"
                className="textarea mono"
                rows={7}
                value={scenario}
                onChange={(e) => setScenario(e.target.value)}
                onBlur={() => setScenarioTouched(true)}
                placeholder={
                  '{"turns": [{"text": "Working", "toolCalls": [{"tool": "shell", "args": {"command": "ls"}}]}, {"text": "Done"}]}'
                }
                aria-invalid={scenarioTouched && scenarioCheck.error ? true : undefined}
                spellCheck={false}
                data-testid="scenario-input"
              />
              {scenarioTouched && scenarioCheck.error ? (
                <FieldError message={scenarioCheck.error} testId="scenario-error" />
              ) : (
                <span className="hint">Optional. The scripted model plays these turns instead of the agent's own script.</span>
              )}
            </div>
          </div>
        </details>
        {create.error && !limitErrors.maxSteps && !limitErrors.budgetUsd && <ErrorBlock error={create.error} testId="new-run-error" />}
      </div>
      <StartDialogFooter onClose={onClose} busy={create.isPending} disabled={!agent || !canOperate} label="Start run" testId="start-run" />
    </form>
  );
}
