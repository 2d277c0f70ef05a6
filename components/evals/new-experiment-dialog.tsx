"use client";
// New experiment: a dataset, the agent under test (each item's own by
// default) at a version, a model, epochs and concurrency, the team its runs go
// to, and a baseline to compare with. The server checks everything again; its
// refusals show under the field they are about.
import { useEffect, useId, useState, type FormEvent, type KeyboardEvent } from "react";
import { Dialog, ErrorBlock, FieldError, StartDialogFooter } from "@/components/ui";
import { ModelPicker } from "@/components/model-picker";
import { TeamPicker, useLaunchTeam } from "@/components/team-picker";
import { OPERATOR_HINT, useMe } from "@/lib/access";
import { parseWhole } from "@/lib/experiment-draft";
import { errorsOf, type FieldErrors } from "@/lib/field-errors";
import { formatRelative, pluralize } from "@/lib/format";
import { MAX_CONCURRENCY, MAX_EPOCHS } from "@/lib/limits";
import { AGENT_MODEL, chosenModel } from "@/lib/model-options";
import { trpc } from "@/lib/trpc";

const FIELDS = ["datasetId", "agent", "agentVersion", "model", "epochs", "concurrency", "name", "teamId", "baselineId"] as const;
type Field = (typeof FIELDS)[number];

export function NewExperimentDialog({
  open,
  datasetId,
  onClose,
  onStarted,
}: {
  open: boolean;
  datasetId?: string;
  onClose(): void;
  onStarted(id: string): void;
}) {
  return (
    <Dialog open={open} onClose={onClose} labelledBy="new-experiment-title" testId="new-experiment-dialog">
      <NewExperimentForm initialDatasetId={datasetId} onClose={onClose} onStarted={onStarted} />
    </Dialog>
  );
}

function NewExperimentForm({
  initialDatasetId,
  onClose,
  onStarted,
}: {
  initialDatasetId?: string;
  onClose(): void;
  onStarted(id: string): void;
}) {
  const ids = useId();
  const { canOperate } = useMe();
  const launch = useLaunchTeam();
  const utils = trpc.useUtils();
  const datasets = trpc.evals.datasets.list.useQuery(undefined, { staleTime: 30_000 });
  const agents = trpc.agents.list.useQuery(undefined, { staleTime: 60_000 });
  const [datasetId, setDatasetId] = useState(initialDatasetId ?? "");
  const [agent, setAgent] = useState("");
  const [version, setVersion] = useState("");
  const [model, setModel] = useState(AGENT_MODEL);
  const [epochs, setEpochs] = useState("1");
  const [concurrency, setConcurrency] = useState("2");
  const [name, setName] = useState("");
  const [baselineId, setBaselineId] = useState("");
  const [errors, setErrors] = useState<FieldErrors<Field>>({ fields: {}, other: null });
  const versions = trpc.agents.versions.useQuery({ name: agent }, { enabled: !!agent, staleTime: 30_000 });
  const baselines = trpc.evals.experiments.list.useQuery({ datasetId, limit: 50 }, { enabled: !!datasetId, staleTime: 10_000 });
  const start = trpc.evals.startExperiment.useMutation({
    onSuccess: (experiment) => {
      void utils.evals.experiments.list.invalidate();
      onStarted(experiment.id);
    },
    onError: (err) => setErrors(errorsOf(err, FIELDS)),
  });

  const usable = (datasets.data ?? []).filter((d) => !d.archived);
  const dataset = usable.find((d) => d.id === datasetId);
  const agentList = (agents.data ?? []).filter((a) => !a.archived);
  const spec = agentList.find((a) => a.name === agent);
  const epochsCheck = parseWhole(epochs, 1, MAX_EPOCHS, 1);
  const concurrencyCheck = parseWhole(concurrency, 1, MAX_CONCURRENCY, 2);

  // No dataset named: the first one that has items (demo-coding on a fresh install).
  useEffect(() => {
    if (datasetId || usable.length === 0) return;
    setDatasetId((usable.find((d) => d.itemCount > 0) ?? usable[0]).id);
  }, [datasetId, usable]);

  function clear(field: Field) {
    setErrors((e) => ({ fields: { ...e.fields, [field]: undefined }, other: e.other }));
  }

  function submit() {
    if (start.isPending || !canOperate) return;
    const local: Partial<Record<Field, string>> = {};
    if (!datasetId) local.datasetId = "Pick the dataset to run";
    if (!epochsCheck.ok) local.epochs = `Epochs ${epochsCheck.error}`;
    if (!concurrencyCheck.ok) local.concurrency = `Concurrency ${concurrencyCheck.error}`;
    if (Object.keys(local).length) {
      setErrors({ fields: local, other: null });
      return;
    }
    setErrors({ fields: {}, other: null });
    start.mutate({
      datasetId,
      ...(agent ? { agent } : {}),
      ...(agent && version ? { agentVersion: Number(version) } : {}),
      ...(chosenModel(model) ? { model: chosenModel(model) } : {}),
      epochs: epochsCheck.ok ? epochsCheck.value : 1,
      concurrency: concurrencyCheck.ok ? concurrencyCheck.value : 2,
      ...(name.trim() ? { name: name.trim() } : {}),
      ...(launch.teamId ? { teamId: launch.teamId } : {}),
      ...(baselineId ? { baselineId } : {}),
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

  const f = errors.fields;
  const idOf = (field: Field) => `${ids}-${field}`;
  const errId = (field: Field) => `${ids}-${field}-error`;
  const invalid = (field: Field) => (f[field] ? { "aria-invalid": true as const, "aria-describedby": errId(field) } : {});
  const trials = dataset && epochsCheck.ok ? dataset.itemCount * epochsCheck.value : null;

  return (
    <form className="dialog-form" onSubmit={onSubmit} onKeyDown={onKeyDown} noValidate data-testid="new-experiment-form">
      <div className="dialog-header">
        <div>
          <h2 id="new-experiment-title">New experiment</h2>
          <p>Every item of the dataset runs as a real run, once per epoch, and each run is scored when it ends.</p>
        </div>
      </div>
      <div className="dialog-body">
        {!canOperate && <div className="alert alert-warn">{OPERATOR_HINT}; you are a viewer.</div>}
        <div className="field">
          <label htmlFor={idOf("datasetId")}>Dataset</label>
          {datasets.isError ? (
            <ErrorBlock prefix="Could not load the datasets" error={datasets.error} onRetry={() => void datasets.refetch()} />
          ) : (
            <select
              id={idOf("datasetId")}
              className="select"
              value={datasetId}
              onChange={(e) => (setDatasetId(e.target.value), setBaselineId(""), clear("datasetId"))}
              disabled={datasets.isLoading}
              data-autofocus
              data-testid="experiment-dataset"
              {...invalid("datasetId")}
            >
              {datasets.isLoading && <option value="">Loading datasets…</option>}
              {!datasets.isLoading && !dataset && <option value="">Pick a dataset</option>}
              {usable.map((d) => (
                <option key={d.id} value={d.id}>
                  {d.name} ({pluralize(d.itemCount, "item")}){d.team ? ` · ${d.team.name}` : ""}
                </option>
              ))}
            </select>
          )}
          <FieldError id={errId("datasetId")} message={f.datasetId} testId="experiment-error-datasetId" live />
          {dataset?.description && !f.datasetId && <span className="hint">{dataset.description}</span>}
        </div>
        <div className="row" style={{ gap: 16, alignItems: "flex-start", flexWrap: "wrap" }}>
          <div className="field" style={{ flex: 2, minWidth: 220 }}>
            <label htmlFor={idOf("agent")}>Agent</label>
            <select
              id={idOf("agent")}
              className="select"
              value={agent}
              onChange={(e) => (setAgent(e.target.value), setVersion(""), clear("agent"), clear("agentVersion"))}
              disabled={agents.isLoading}
              data-testid="experiment-agent"
              {...invalid("agent")}
            >
              <option value="">Each item&apos;s own agent</option>
              {agentList.map((a) => (
                <option key={a.name} value={a.name}>
                  {a.name} (v{a.version})
                </option>
              ))}
            </select>
            <FieldError id={errId("agent")} message={f.agent} testId="experiment-error-agent" live />
            {!f.agent && (
              <span className="hint">
                {agent ? "Every item runs with this agent." : "Each item runs with the agent it names, at its latest version."}
              </span>
            )}
          </div>
          {agent && (
            <div className="field" style={{ flex: 1, minWidth: 160 }}>
              <label htmlFor={idOf("agentVersion")}>Version</label>
              <select
                id={idOf("agentVersion")}
                className="select"
                value={version}
                onChange={(e) => (setVersion(e.target.value), clear("agentVersion"))}
                disabled={versions.isLoading}
                data-testid="experiment-version"
                {...invalid("agentVersion")}
              >
                <option value="">Latest{spec ? ` (v${spec.version})` : ""}</option>
                {(versions.data ?? []).map((v) => (
                  <option key={v.version} value={v.version}>
                    v{v.version}
                    {v.changeNote ? ` — ${v.changeNote}` : ""}
                  </option>
                ))}
              </select>
              <FieldError id={errId("agentVersion")} message={f.agentVersion} testId="experiment-error-agentVersion" live />
            </div>
          )}
        </div>
        <div>
          <ModelPicker
            agentModel={spec?.model}
            value={model}
            onChange={(v) => (setModel(v), clear("model"))}
            ownHint="Each item runs on its own agent's model."
          />
          <FieldError id={errId("model")} message={f.model} testId="experiment-error-model" live />
          <span className="hint">Items with a scenario always play it on the scripted model.</span>
        </div>
        <div className="row" style={{ gap: 16, alignItems: "flex-start", flexWrap: "wrap" }}>
          <div className="field" style={{ width: 180 }}>
            <label htmlFor={idOf("epochs")}>Epochs</label>
            <input
              id={idOf("epochs")}
              className="input"
              inputMode="numeric"
              value={epochs}
              onChange={(e) => (setEpochs(e.target.value), clear("epochs"))}
              data-testid="experiment-epochs"
              {...invalid("epochs")}
            />
            {f.epochs ? (
              <FieldError id={errId("epochs")} message={f.epochs} testId="experiment-error-epochs" live />
            ) : (
              <span className="hint">Runs of each item, 1 to {MAX_EPOCHS}.</span>
            )}
          </div>
          <div className="field" style={{ width: 180 }}>
            <label htmlFor={idOf("concurrency")}>Concurrency</label>
            <input
              id={idOf("concurrency")}
              className="input"
              inputMode="numeric"
              value={concurrency}
              onChange={(e) => (setConcurrency(e.target.value), clear("concurrency"))}
              data-testid="experiment-concurrency"
              {...invalid("concurrency")}
            />
            {f.concurrency ? (
              <FieldError id={errId("concurrency")} message={f.concurrency} testId="experiment-error-concurrency" live />
            ) : (
              <span className="hint">Runs at once, 1 to {MAX_CONCURRENCY}.</span>
            )}
          </div>
          {trials !== null && (
            <p className="hint" style={{ alignSelf: "center", flex: 1, minWidth: 160 }} data-testid="experiment-trials">
              {pluralize(trials, "run")} in all.
            </p>
          )}
        </div>
        <TeamPicker
          inputId={idOf("teamId")}
          launch={launch}
          hint="The experiment's runs use this team's budget, policies and models, and its members see them."
          onlyTeam={(team) => <>Its runs go to {team}, the only team where you may start runs.</>}
        />
        <FieldError id={errId("teamId")} message={f.teamId} testId="experiment-error-teamId" live />
        <div className="field">
          <label htmlFor={idOf("baselineId")}>Baseline (optional)</label>
          <select
            id={idOf("baselineId")}
            className="select"
            value={baselineId}
            onChange={(e) => (setBaselineId(e.target.value), clear("baselineId"))}
            disabled={!datasetId || baselines.isLoading}
            data-testid="experiment-baseline-select"
            {...invalid("baselineId")}
          >
            <option value="">None</option>
            {(baselines.data ?? []).map((b) => (
              <option key={b.id} value={b.id}>
                {b.name} · {b.status} · {formatRelative(b.startedAt ?? b.createdAt)}
              </option>
            ))}
          </select>
          {f.baselineId ? (
            <FieldError id={errId("baselineId")} message={f.baselineId} testId="experiment-error-baselineId" live />
          ) : (
            <span className="hint">An earlier experiment of this dataset to compare with.</span>
          )}
        </div>
        <div className="field">
          <label htmlFor={idOf("name")}>Name (optional)</label>
          <input
            id={idOf("name")}
            className="input"
            value={name}
            maxLength={120}
            placeholder={dataset ? `${dataset.name} · ${agent ? `${agent} v${version || spec?.version || "?"}` : "items' agents"}` : ""}
            onChange={(e) => (setName(e.target.value), clear("name"))}
            data-testid="experiment-name"
            {...invalid("name")}
          />
          <FieldError id={errId("name")} message={f.name} testId="experiment-error-name" live />
        </div>
        <ErrorBlock message={errors.other} testId="new-experiment-error" />
      </div>
      <StartDialogFooter
        onClose={onClose}
        busy={start.isPending}
        disabled={!canOperate || !datasetId}
        label="Start experiment"
        testId="experiment-start"
      />
    </form>
  );
}
