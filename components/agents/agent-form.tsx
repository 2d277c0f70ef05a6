"use client";
// The agent editor's fields (docs/agents.md). Each shows its own problems in
// the server's words; the page holds the draft and checks it.
import Link from "next/link";
import { ErrorBlock, FieldError } from "@/components/ui";
import type { AgentDraft, FieldKey, GroupedProblems } from "@/lib/agent-draft";
import {
  DEFAULT_CALL_CAP,
  DEFAULT_MAX_FAILING_STEPS,
  DEFAULT_MAX_REPEATS,
  DEFAULT_MEMORY_TOKENS,
  DEFAULT_SESSION_BUDGET_PCT,
  MAX_MEMORY_TOKENS,
  MAX_SESSION_BUDGET_PCT,
  MIN_SESSION_BUDGET_PCT,
} from "@/lib/agent-draft";
import { errorMessage } from "@/lib/errors";
import { trpc } from "@/lib/trpc";
import { FieldProblems, problemProps } from "./field-problems";
import { HostedField, HostedToolsNote } from "./hosted-field";
import { InstructionsField } from "./instructions-field";
import { ModelField } from "./model-field";
import { ReplayChip } from "./replay-chip";
import { TeamOptions } from "./team-options";
import styles from "./agents.module.css";

export interface AgentFormProps {
  draft: AgentDraft;
  onChange(patch: Partial<AgentDraft>): void;
  isNew: boolean;
  readOnly: boolean;
  problems: GroupedProblems;
  /** The team the saved agent belongs to, named even when the caller is not in it. */
  savedTeam: { id: string; name: string } | null;
  /** Bumped when the draft is replaced from outside, so Monaco starts again from it. */
  resetKey: number;
  onSave(): void;
}

function toggle(list: string[], item: string, on: boolean): string[] {
  return on ? (list.includes(item) ? list : [...list, item]) : list.filter((x) => x !== item);
}

export function AgentForm({ draft, onChange, isNew, readOnly, problems, savedTeam, resetKey, onSave }: AgentFormProps) {
  const p = (k: FieldKey) => problems.byField[k];
  return (
    <div className={`card ${styles.form}`} data-testid="agent-form">
      <section className={styles.section} aria-labelledby="agent-about">
        <h2 id="agent-about" className={styles.sectionTitle}>
          About
        </h2>
        {isNew && (
          <div className="field" id="agent-field-name">
            <label htmlFor="agent-name">Name</label>
            <input
              id="agent-name"
              className="input mono"
              value={draft.name}
              onChange={(e) => onChange({ name: e.target.value })}
              placeholder="e.g. release-notes-writer"
              autoComplete="off"
              spellCheck={false}
              maxLength={64}
              data-testid="agent-name"
              autoFocus
              {...problemProps("name", p("name"))}
            />
            <span className="hint">2–64 lowercase letters, digits and dashes, starting with a letter. It cannot be changed later.</span>
            <FieldProblems field="name" messages={p("name")} />
          </div>
        )}
        <div className="field" id="agent-field-description">
          <label htmlFor="agent-description">Description</label>
          <textarea
            id="agent-description"
            className="textarea"
            rows={2}
            style={{ minHeight: 56 }}
            value={draft.description}
            readOnly={readOnly}
            maxLength={500}
            onChange={(e) => onChange({ description: e.target.value })}
            placeholder="What it is for, in a sentence"
            data-testid="agent-description"
            {...problemProps("description", p("description"))}
          />
          <FieldProblems field="description" messages={p("description")} />
        </div>
        <InstructionsField
          value={draft.instructions}
          resetKey={resetKey}
          readOnly={readOnly}
          problems={p("instructions")}
          onChange={(instructions) => onChange({ instructions })}
          onSave={onSave}
        />
      </section>

      <section className={styles.section} aria-labelledby="agent-model-title">
        <h2 id="agent-model-title" className={styles.sectionTitle}>
          Model and routing
        </h2>
        <ModelField
          draft={draft}
          readOnly={readOnly}
          problems={{ model: p("model"), taskClass: p("taskClass"), complexity: p("complexity") }}
          onChange={onChange}
        />
      </section>

      <section className={styles.section} aria-labelledby="agent-tools-title">
        <h2 id="agent-tools-title" className={styles.sectionTitle}>
          Tools and hand-offs
        </h2>
        <HostedField draft={draft} readOnly={readOnly} problems={p("hosted")} onChange={onChange} />
        <ToolsField draft={draft} readOnly={readOnly} problems={p("tools")} onChange={onChange} />
        <HandoffsField draft={draft} readOnly={readOnly} problems={p("handoffs")} onChange={onChange} />
      </section>

      <section className={styles.section} aria-labelledby="agent-guardrails-title">
        <h2 id="agent-guardrails-title" className={styles.sectionTitle}>
          Guardrails
        </h2>
        <GuardrailsFields draft={draft} readOnly={readOnly} problems={problems} onChange={onChange} />
      </section>

      <section className={styles.section} aria-labelledby="agent-access-title">
        <h2 id="agent-access-title" className={styles.sectionTitle}>
          Secrets and visibility
        </h2>
        <SecretsField draft={draft} readOnly={readOnly} problems={p("secrets")} onChange={onChange} />
        <TeamField draft={draft} readOnly={readOnly} problems={p("teamId")} savedTeam={savedTeam} onChange={onChange} />
      </section>
    </div>
  );
}

type FieldProps = { draft: AgentDraft; readOnly: boolean; problems?: string[]; onChange(patch: Partial<AgentDraft>): void };

function ToolsField({ draft, readOnly, problems, onChange }: FieldProps) {
  if (draft.hostedProgram)
    return (
      <div className="field" id="agent-field-tools">
        <span className="label">Tools</span>
        <HostedToolsNote program={draft.hostedProgram} what="tools" testId="agent-tools-hosted" />
        <FieldProblems field="tools" messages={problems} />
      </div>
    );
  return <ToolsList draft={draft} readOnly={readOnly} problems={problems} onChange={onChange} />;
}

function ToolsList({ draft, readOnly, problems, onChange }: FieldProps) {
  const tools = trpc.agents.tools.useQuery(undefined, { staleTime: 5 * 60_000 });
  const listed = new Set(tools.data?.map((t) => t.name));
  const unknown = draft.tools.filter((t) => !listed.has(t));
  return (
    <fieldset className="field" id="agent-field-tools" style={{ border: 0, padding: 0, margin: 0 }} disabled={readOnly}>
      <legend className="label" style={{ marginBottom: 6 }}>
        Tools <span className="hint">({draft.tools.length} chosen)</span>
      </legend>
      {tools.isLoading ? (
        <p className="hint">Loading the tools…</p>
      ) : tools.isError ? (
        <ErrorBlock prefix="Could not load the tools" error={tools.error} onRetry={() => void tools.refetch()} />
      ) : (
        <div className={`${styles.checklist}${problems?.length ? ` ${styles.invalidBox}` : ""}`} data-testid="agent-tools">
          {tools.data!.map((t) => (
            <label key={t.name} className={styles.checkItem} data-testid="tool-option" data-tool={t.name}>
              <input
                type="checkbox"
                checked={draft.tools.includes(t.name)}
                onChange={(e) => onChange({ tools: toggle(draft.tools, t.name, e.target.checked) })}
              />
              <span className={styles.checkText}>
                <span className={styles.checkName}>
                  <span className="mono">{t.name}</span>
                  <ReplayChip replayClass={t.replayClass} />
                </span>
                <span className={`hint ${styles.clamp}`} title={t.description}>
                  {t.description}
                </span>
              </span>
            </label>
          ))}
          {unknown.map((name) => (
            <label key={name} className={styles.checkItem} data-testid="tool-option" data-tool={name}>
              <input type="checkbox" checked onChange={() => onChange({ tools: toggle(draft.tools, name, false) })} />
              <span className={styles.checkText}>
                <span className="mono">{name}</span>
                <span className="hint">Not a tool of this server.</span>
              </span>
            </label>
          ))}
        </div>
      )}
      <FieldProblems field="tools" messages={problems} />
    </fieldset>
  );
}

function HandoffsField({ draft, readOnly, problems, onChange }: FieldProps) {
  if (draft.hostedProgram)
    return (
      <div className="field" id="agent-field-handoffs">
        <span className="label">Hands off to</span>
        <HostedToolsNote program={draft.hostedProgram} what="handoffs" testId="agent-handoffs-hosted" />
        <FieldProblems field="handoffs" messages={problems} />
      </div>
    );
  return <HandoffsList draft={draft} readOnly={readOnly} problems={problems} onChange={onChange} />;
}

function HandoffsList({ draft, readOnly, problems, onChange }: FieldProps) {
  const agents = trpc.agents.list.useQuery({}, { staleTime: 60_000 });
  const others = (agents.data ?? []).filter((a) => a.name !== draft.name.trim());
  const listed = new Set(others.map((a) => a.name));
  const unlisted = draft.handoffs.filter((h) => !listed.has(h));
  const needsTool = draft.handoffs.length > 0 && !draft.tools.includes("handoff");
  return (
    <fieldset className="field" id="agent-field-handoffs" style={{ border: 0, padding: 0, margin: 0 }} disabled={readOnly}>
      <legend className="label" style={{ marginBottom: 6 }}>
        Hands off to
      </legend>
      {agents.isLoading ? (
        <p className="hint">Loading the agents…</p>
      ) : agents.isError ? (
        <FieldError message={<>Could not load the agents: {errorMessage(agents.error)}</>} live block />
      ) : others.length === 0 && unlisted.length === 0 ? (
        <p className="hint">No other agent to hand off to.</p>
      ) : (
        <div className={styles.checklist} data-testid="agent-handoffs">
          {others.map((a) => (
            <label key={a.name} className={styles.checkItem} data-testid="handoff-option">
              <input
                type="checkbox"
                checked={draft.handoffs.includes(a.name)}
                onChange={(e) => onChange({ handoffs: toggle(draft.handoffs, a.name, e.target.checked) })}
              />
              <span className={styles.checkText}>
                <span className="mono">{a.name}</span>
                {a.description && (
                  <span className={`hint ${styles.clamp}`} title={a.description}>
                    {a.description}
                  </span>
                )}
              </span>
            </label>
          ))}
          {unlisted.map((name) => (
            <label key={name} className={styles.checkItem} data-testid="handoff-option">
              <input type="checkbox" checked onChange={() => onChange({ handoffs: toggle(draft.handoffs, name, false) })} />
              <span className={styles.checkText}>
                <span className="mono">{name}</span>
                <span className="hint">Not an agent you can see.</span>
              </span>
            </label>
          ))}
        </div>
      )}
      <span className="hint">
        {needsTool ? "Handing off needs the handoff tool among its tools." : "The agent may pass its work to these, with the handoff tool."}
      </span>
      <FieldProblems field="handoffs" messages={problems} />
    </fieldset>
  );
}

function NumberField({
  field,
  id,
  label,
  value,
  placeholder,
  hint,
  readOnly,
  problems,
  onChange,
  inputMode = "numeric",
}: {
  field: FieldKey;
  id: string;
  label: string;
  value: string;
  placeholder: string;
  hint: string;
  readOnly: boolean;
  problems?: string[];
  onChange(value: string): void;
  inputMode?: "numeric" | "decimal";
}) {
  return (
    <div className="field" id={`agent-field-${field}`}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        className="input"
        inputMode={inputMode}
        value={value}
        placeholder={placeholder}
        readOnly={readOnly}
        onChange={(e) => onChange(e.target.value)}
        data-testid={id}
        {...problemProps(field, problems)}
      />
      {problems?.length ? <FieldProblems field={field} messages={problems} /> : <span className="hint">{hint}</span>}
    </div>
  );
}

function GuardrailsFields({ draft, readOnly, problems, onChange }: Omit<FieldProps, "problems"> & { problems: GroupedProblems }) {
  const tiers = trpc.tiers.get.useQuery(undefined, { staleTime: 5 * 60_000 });
  const p = problems.byField;
  return (
    <>
      <div className={styles.grid2}>
        <NumberField
          field="guardrails.callCap"
          id="agent-call-cap"
          label="Call cap (model calls)"
          value={draft.callCap}
          placeholder={String(DEFAULT_CALL_CAP)}
          hint={`Default ${DEFAULT_CALL_CAP}. More than ${DEFAULT_CALL_CAP} needs a cost ceiling.`}
          readOnly={readOnly}
          problems={p["guardrails.callCap"]}
          onChange={(callCap) => onChange({ callCap })}
        />
        <NumberField
          field="guardrails.costCeilingUsd"
          id="agent-cost-ceiling"
          label="Cost ceiling (USD)"
          value={draft.costCeilingUsd}
          placeholder="No ceiling"
          inputMode="decimal"
          hint="A run stops before a model call that would cost more."
          readOnly={readOnly}
          problems={p["guardrails.costCeilingUsd"]}
          onChange={(costCeilingUsd) => onChange({ costCeilingUsd })}
        />
        <NumberField
          field="guardrails.maxRepeats"
          id="agent-max-repeats"
          label="Max repeats of the same call"
          value={draft.maxRepeats}
          placeholder={String(DEFAULT_MAX_REPEATS)}
          hint="The same tool call with the same arguments this often in a row looks like a loop: a person is asked."
          readOnly={readOnly}
          problems={p["guardrails.maxRepeats"]}
          onChange={(maxRepeats) => onChange({ maxRepeats })}
        />
        <NumberField
          field="guardrails.maxFailingSteps"
          id="agent-max-failing"
          label="Max failing steps"
          value={draft.maxFailingSteps}
          placeholder={String(DEFAULT_MAX_FAILING_STEPS)}
          hint="This many steps in a row without progress (every call failing) looks like a loop too."
          readOnly={readOnly}
          problems={p["guardrails.maxFailingSteps"]}
          onChange={(maxFailingSteps) => onChange({ maxFailingSteps })}
        />
        <div className="field" id="agent-field-tier">
          <label htmlFor="agent-tier">Tier</label>
          <select
            id="agent-tier"
            className="select"
            value={draft.tier}
            disabled={readOnly || tiers.isLoading}
            onChange={(e) => onChange({ tier: e.target.value })}
            data-testid="agent-tier"
            {...problemProps("tier", p.tier)}
          >
            {!tiers.data?.tiers.some((t) => t.id === draft.tier) && <option value={draft.tier}>{draft.tier}</option>}
            {tiers.data?.tiers.map((t) => (
              <option key={t.id} value={t.id} disabled={!!t.notBuilt && t.id !== draft.tier}>
                {t.id} · {t.name}
                {t.notBuilt ? " (not available on this server)" : !tiers.data!.settings[t.id].enabled ? " (turned off)" : ""}
              </option>
            ))}
          </select>
          {p.tier?.length ? (
            <FieldProblems field="tier" messages={p.tier} />
          ) : (
            <span className="hint">
              {tiers.isError
                ? `Could not load the tiers: ${errorMessage(tiers.error)}`
                : (tiers.data?.tiers.find((t) => t.id === draft.tier)?.offers ?? "Where its runs start.")}
            </span>
          )}
        </div>
      </div>
      <h3 className={styles.subTitle} id="agent-long-runs-title">
        Long runs and memory
      </h3>
      <div className={styles.grid2} role="group" aria-labelledby="agent-long-runs-title">
        <NumberField
          field="guardrails.sessionBudget"
          id="agent-session-budget"
          label="Session budget (% of the context window)"
          value={draft.sessionBudgetPct}
          placeholder={String(DEFAULT_SESSION_BUDGET_PCT)}
          inputMode="decimal"
          hint={`Default ${DEFAULT_SESSION_BUDGET_PCT}%, from ${MIN_SESSION_BUDGET_PCT} to ${MAX_SESSION_BUDGET_PCT}. When the conversation fills this much of the model's window, a fresh session starts from the goal, the task list, the notes and the git log.`}
          readOnly={readOnly}
          problems={p["guardrails.sessionBudget"]}
          onChange={(sessionBudgetPct) => onChange({ sessionBudgetPct })}
        />
        <NumberField
          field="guardrails.memoryTokens"
          id="agent-memory-tokens"
          label="Memory budget (tokens)"
          value={draft.memoryTokens}
          placeholder={formatCount(DEFAULT_MEMORY_TOKENS)}
          hint={`Default ${formatCount(DEFAULT_MEMORY_TOKENS)}, at most ${formatCount(MAX_MEMORY_TOKENS)}. The most tokens of remembered facts loaded into a run's prompt; 0 loads none.`}
          readOnly={readOnly}
          problems={p["guardrails.memoryTokens"]}
          onChange={(memoryTokens) => onChange({ memoryTokens })}
        />
        <div className="field" id="agent-field-guardrails.memoryConfirm">
          <span className="label" id="agent-memory-confirm-label">
            Saved memories
          </span>
          <label className={styles.checkItem}>
            <input
              type="checkbox"
              id="agent-memory-confirm"
              checked={draft.memoryConfirm === true}
              disabled={readOnly}
              onChange={(e) => onChange({ memoryConfirm: e.target.checked ? true : undefined })}
              data-testid="agent-memory-confirm"
              {...problemProps("guardrails.memoryConfirm", p["guardrails.memoryConfirm"])}
            />
            <span className={styles.checkText}>Wait for a person to confirm</span>
          </label>
          {p["guardrails.memoryConfirm"]?.length ? (
            <FieldProblems field="guardrails.memoryConfirm" messages={p["guardrails.memoryConfirm"]} />
          ) : (
            <span className="hint">
              What the agent remembers counts only once someone confirms it in the Inbox. Off: it counts at once.
            </span>
          )}
        </div>
      </div>
      <FieldProblems field="guardrails" messages={p.guardrails} />
    </>
  );
}

function formatCount(n: number): string {
  return n.toLocaleString("en-US");
}

function SecretsField({ draft, readOnly, problems, onChange }: FieldProps) {
  const names = trpc.secrets.names.useQuery(undefined, { staleTime: 30_000, retry: false });
  const listed = new Set(names.data?.map((s) => s.name));
  const unlisted = draft.secrets.filter((s) => !listed.has(s));
  return (
    <fieldset className="field" id="agent-field-secrets" style={{ border: 0, padding: 0, margin: 0 }} disabled={readOnly}>
      <legend className="label" style={{ marginBottom: 6 }}>
        Secrets its tools may receive
      </legend>
      {names.isLoading ? (
        <p className="hint">Loading secrets…</p>
      ) : names.isError ? (
        // Only operators may list the secrets' names: the others type them.
        <>
          <input
            className="input mono"
            aria-label="Secret names, separated by commas"
            value={draft.secrets.join(", ")}
            onChange={(e) =>
              onChange({
                secrets: e.target.value
                  .split(",")
                  .map((s) => s.trim())
                  .filter(Boolean),
              })
            }
            placeholder="GITHUB_TOKEN, NPM_TOKEN"
            data-testid="agent-secrets-text"
            {...problemProps("secrets", problems)}
          />
          <span className="hint">Names separated by commas (the list of secrets could not be shown: {errorMessage(names.error)}).</span>
        </>
      ) : !names.data?.length && unlisted.length === 0 ? (
        <p className="hint" data-testid="agent-secrets-empty">
          No secrets yet. An admin adds them in <Link href="/settings/secrets">Settings › Secrets</Link>.
        </p>
      ) : (
        <div className={styles.checklist} data-testid="agent-secrets">
          {names.data!.map((s) => (
            <label key={s.name} className={styles.checkItem} data-testid="secret-option">
              <input
                type="checkbox"
                checked={draft.secrets.includes(s.name)}
                onChange={(e) => onChange({ secrets: toggle(draft.secrets, s.name, e.target.checked) })}
              />
              <span className={styles.checkText}>
                <span className="mono">{s.name}</span>
                <span className="hint mono">${s.env}</span>
              </span>
            </label>
          ))}
          {unlisted.map((name) => (
            <label key={name} className={styles.checkItem} data-testid="secret-option">
              <input type="checkbox" checked onChange={() => onChange({ secrets: toggle(draft.secrets, name, false) })} />
              <span className={styles.checkText}>
                <span className="mono">{name}</span>
                <span className="hint">Not a stored secret.</span>
              </span>
            </label>
          ))}
        </div>
      )}
      <FieldProblems field="secrets" messages={problems} />
    </fieldset>
  );
}

function TeamField({ draft, readOnly, problems, savedTeam, onChange }: FieldProps & { savedTeam: { id: string; name: string } | null }) {
  return (
    <div className="field" id="agent-field-teamId" style={{ maxWidth: 420 }}>
      <label htmlFor="agent-team">Visible to</label>
      <select
        id="agent-team"
        className="select"
        value={draft.teamId ?? ""}
        disabled={readOnly}
        onChange={(e) => onChange({ teamId: e.target.value || null })}
        data-testid="agent-team"
        {...problemProps("teamId", problems)}
      >
        <TeamOptions savedTeam={savedTeam} />
      </select>
      {problems?.length ? (
        <FieldProblems field="teamId" messages={problems} />
      ) : (
        <span className="hint">
          {draft.teamId
            ? "Only that team's members (and admins) see and run it."
            : "Every signed-in person sees it; only admins change an agent everyone sees."}
        </span>
      )}
    </div>
  );
}
