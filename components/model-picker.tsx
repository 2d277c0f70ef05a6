"use client";
// The New run dialog's model and complexity: the agent's own model unless
// another is picked; scripted models always say so.
import { FieldError } from "@/components/ui";
import { ModelLabel } from "@/components/model-label";
import { AGENT_MODEL, AUTO, modelChoices, parseComplexity } from "@/lib/model-options";
import { trpc } from "@/lib/trpc";

export function ModelPicker({
  agentModel,
  value,
  onChange,
  disabledReason,
  ownHint,
}: {
  agentModel?: string;
  value: string;
  onChange(value: string): void;
  disabledReason?: string | null;
  /** What "the agent's model" means when no one agent is picked (each item's own agent). */
  ownHint?: string;
}) {
  const options = trpc.models.options.useQuery(undefined, { staleTime: 30_000 });
  const choices = modelChoices(options.data, agentModel);
  const picked = [...choices.top, ...choices.configured, ...choices.scripted].find((c) => c.value === value);
  const shown = value === AGENT_MODEL ? agentModel : value;
  return (
    <div className="field" style={{ flex: 1, minWidth: 0 }}>
      <label htmlFor="new-run-model">Model</label>
      <select
        id="new-run-model"
        className="select"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        disabled={!!disabledReason}
        data-testid="model-select"
      >
        {choices.top.map((c) => (
          <option key={c.value} value={c.value}>
            {c.label}
          </option>
        ))}
        {choices.configured.length > 0 && (
          <optgroup label="Configured models">
            {choices.configured.map((c) => (
              <option key={c.value} value={c.value}>
                {c.label}
              </option>
            ))}
          </optgroup>
        )}
        {choices.scripted.length > 0 && (
          <optgroup label="Scripted (demo, no model called)">
            {choices.scripted.map((c) => (
              <option key={c.value} value={c.value}>
                {c.label}
              </option>
            ))}
          </optgroup>
        )}
      </select>
      <span className="hint row" style={{ flexWrap: "wrap", gap: 6 }} data-testid="model-hint">
        {disabledReason ? (
          disabledReason
        ) : ownHint && value === AGENT_MODEL && !agentModel ? (
          ownHint
        ) : value === AUTO ? (
          "The routing rules pick a model for each call, and fail over when one is down."
        ) : (
          <>
            {shown && <ModelLabel model={shown} scripted={picked?.scripted ?? shown.startsWith("scripted")} />}
            {(picked?.scripted ?? shown?.startsWith("scripted"))
              ? "Plays a script: no model is called, nothing is billed."
              : "Fails over to the other candidates of its task class's routing rule."}
          </>
        )}
      </span>
    </div>
  );
}

export function ComplexityField({ value, error, onChange }: { value: string; error: string | null; onChange(value: string): void }) {
  const parsed = parseComplexity(value);
  const slider = parsed.ok && parsed.value !== undefined ? parsed.value : 0.5;
  return (
    <div className="field" style={{ width: 190 }}>
      <label htmlFor="new-run-complexity">Complexity (optional)</label>
      <div className="row" style={{ gap: 8 }}>
        <input
          id="new-run-complexity"
          className="input"
          style={{ width: 70 }}
          inputMode="decimal"
          placeholder="0.5"
          value={value}
          onChange={(e) => onChange(e.target.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby="new-run-complexity-help"
          data-testid="complexity-input"
        />
        <input
          type="range"
          min={0}
          max={1}
          step={0.05}
          value={slider}
          onChange={(e) => onChange(e.target.value)}
          aria-label="Complexity, 0 to 1"
          style={{ flex: 1 }}
          tabIndex={-1}
        />
      </div>
      {error ? (
        <FieldError id="new-run-complexity-help" message={error} testId="complexity-error" live />
      ) : (
        <span className="hint" id="new-run-complexity-help">
          0 easy – 1 hard: routing puts models at least this strong first.
        </span>
      )}
    </div>
  );
}
