"use client";
// The agent's model: one model (configured, or a scripted demo, labelled so),
// or routing by task class ("auto"). The task class is asked either way: with
// one model, its routing rule's other models take over when that one fails.
import { ModelLabel } from "@/components/model-label";
import type { AgentDraft } from "@/lib/agent-draft";
import { errorMessage } from "@/lib/errors";
import { parseComplexity } from "@/lib/model-options";
import { TASK_CLASS_HINTS, TASK_CLASS_ORDER } from "@/lib/routing-draft";
import { trpc } from "@/lib/trpc";
import type { TaskClass } from "@/server/models";
import { FieldProblems, problemProps } from "./field-problems";
import styles from "./agents.module.css";

type Problems = Partial<Record<"model" | "taskClass" | "complexity", string[]>>;

export function ModelField({
  draft,
  readOnly,
  problems,
  onChange,
}: {
  draft: AgentDraft;
  readOnly: boolean;
  problems: Problems;
  onChange(patch: Partial<AgentDraft>): void;
}) {
  const options = trpc.models.options.useQuery(undefined, { staleTime: 30_000 });
  const models = options.data?.models ?? [];
  const configured = models.filter((m) => !m.scripted);
  const scripted = models.filter((m) => m.scripted);
  const known = models.some((m) => m.ref === draft.model);
  const isScripted = draft.model.startsWith("scripted/");
  const complexity = parseComplexity(draft.complexity);
  const slider = complexity.ok && complexity.value !== undefined ? complexity.value : 0.5;

  return (
    <>
      <fieldset className="field" id="agent-field-model" style={{ border: 0, padding: 0, margin: 0 }} disabled={readOnly}>
        <legend className="label" style={{ marginBottom: 6 }}>
          Model
        </legend>
        <div className={styles.radioRow}>
          <label className="checkbox">
            <input
              type="radio"
              name="agent-model-mode"
              checked={draft.modelMode === "model"}
              onChange={() => onChange({ modelMode: "model" })}
              data-testid="model-mode-model"
            />
            A model
          </label>
          <label className="checkbox">
            <input
              type="radio"
              name="agent-model-mode"
              checked={draft.modelMode === "taskClass"}
              onChange={() => onChange({ modelMode: "taskClass" })}
              data-testid="model-mode-task-class"
            />
            By task class (routing rules pick one for each call)
          </label>
        </div>
        {draft.modelMode === "model" && (
          <div className="stack" style={{ gap: 6 }}>
            <select
              id="agent-model"
              aria-label="Model"
              className="select"
              value={draft.model}
              onChange={(e) => onChange({ model: e.target.value })}
              data-testid="agent-model-select"
              {...problemProps("model", problems.model)}
            >
              {!known && draft.model && (
                <option value={draft.model}>
                  {draft.model}
                  {options.isLoading ? "" : " (not configured)"}
                </option>
              )}
              {configured.length > 0 && (
                <optgroup label="Configured models">
                  {configured.map((m) => (
                    <option key={m.ref} value={m.ref}>
                      {m.label}
                    </option>
                  ))}
                </optgroup>
              )}
              {scripted.length > 0 && (
                <optgroup label="Scripted (demo, no model called)">
                  {scripted.map((m) => (
                    <option key={m.ref} value={m.ref}>
                      {m.label}
                    </option>
                  ))}
                </optgroup>
              )}
            </select>
            <span className="hint row" style={{ flexWrap: "wrap", gap: 6 }}>
              {options.isError ? (
                <>Could not load the models: {errorMessage(options.error)}</>
              ) : (
                <>
                  <ModelLabel model={draft.model} scripted={isScripted} />
                  {isScripted
                    ? "Plays a script: no model is called, nothing is billed."
                    : "Its task class's routing rule takes over when it fails."}
                </>
              )}
            </span>
          </div>
        )}
        <FieldProblems field="model" messages={problems.model} />
      </fieldset>
      <div className={styles.grid2}>
        <div className="field" id="agent-field-taskClass">
          <label htmlFor="agent-task-class">Task class</label>
          <select
            id="agent-task-class"
            className="select"
            value={draft.taskClass}
            disabled={readOnly}
            onChange={(e) => onChange({ taskClass: e.target.value as TaskClass })}
            data-testid="agent-task-class"
            {...problemProps("taskClass", problems.taskClass)}
          >
            {TASK_CLASS_ORDER.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
          <span className="hint">{TASK_CLASS_HINTS[draft.taskClass]}</span>
          <FieldProblems field="taskClass" messages={problems.taskClass} />
        </div>
        <div className="field" id="agent-field-complexity">
          <label htmlFor="agent-complexity">Complexity (optional)</label>
          <div className="row" style={{ gap: 8 }}>
            <input
              id="agent-complexity"
              className="input"
              style={{ width: 70 }}
              inputMode="decimal"
              placeholder="0.5"
              value={draft.complexity}
              disabled={readOnly}
              onChange={(e) => onChange({ complexity: e.target.value })}
              data-testid="agent-complexity"
              {...problemProps("complexity", problems.complexity)}
            />
            <input
              type="range"
              min={0}
              max={1}
              step={0.05}
              value={slider}
              disabled={readOnly}
              onChange={(e) => onChange({ complexity: e.target.value })}
              aria-label="Complexity, 0 to 1"
              style={{ flex: 1 }}
            />
          </div>
          <span className="hint">0 easy – 1 hard: routing puts models at least this strong first; higher tiers need it.</span>
          <FieldProblems field="complexity" messages={problems.complexity} />
        </div>
      </div>
    </>
  );
}
