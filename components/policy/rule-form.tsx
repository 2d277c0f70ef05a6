"use client";
// The form for one policy rule: what it matches (actor, team, tool and its
// arguments, tier), its decision, and for ask, who decides and how. The
// options come from the schema (policy.grammar); each change is written to
// the YAML at once (docs/human-requests-and-policy.md#the-rule-form).
import type { RuleFields, RuleView } from "@/lib/policy-rules";
import { ArgConditions } from "./arg-conditions";
import { CommitInput, ListInput } from "./commit-input";
import { TIERS, TOOLS } from "./known-values";
import { TeamPicker, type TeamOption } from "./team-picker";
import type { PolicyGrammarView } from "./types";
import styles from "./policy.module.css";

const DECISION_WORDS: Record<string, string> = { allow: "allow: it runs", deny: "deny: it is refused", ask: "ask a person first" };

export function RuleForm({
  index,
  rule,
  grammar,
  teams,
  onPatch,
}: {
  index: number;
  rule: RuleView;
  grammar: PolicyGrammarView;
  teams: TeamOption[] | undefined;
  onPatch(patch: Partial<RuleFields>): void;
}) {
  const id = (field: string) => `rule-${index}-${field}`;
  const noScope = !rule.actor.length && !rule.team.length && !rule.tool.length && !rule.tier.length;
  return (
    <div className={styles.ruleForm} data-testid="rule-form">
      <div className={styles.formGrid}>
        <div className="field">
          <label htmlFor={id("name")}>Name</label>
          <CommitInput
            id={id("name")}
            value={rule.name}
            commit={(name) => onPatch({ name })}
            placeholder="What the rule is for"
            maxLength={200}
            data-testid="rule-name"
          />
        </div>
        <div className="field">
          <label htmlFor={id("decision")}>
            Decision
            <Required />
          </label>
          <select
            id={id("decision")}
            className="select"
            value={rule.decision}
            required
            onChange={(e) => onPatch({ decision: e.target.value })}
            data-testid="rule-decision"
          >
            {!grammar.decisions.includes(rule.decision as never) && (
              <option value={rule.decision} disabled>
                {rule.decision ? `${rule.decision} (not a decision)` : "Choose…"}
              </option>
            )}
            {grammar.decisions.map((d) => (
              <option key={d} value={d}>
                {DECISION_WORDS[d] ?? d}
              </option>
            ))}
          </select>
        </div>
      </div>

      {rule.decision === "ask" && (
        <fieldset className={styles.fieldset}>
          <legend>Asking a person</legend>
          <div className={styles.formGrid3}>
            <div className="field">
              <label htmlFor={id("ask-role")}>Who may approve</label>
              <select
                id={id("ask-role")}
                className="select"
                value={rule.ask?.role ?? ""}
                onChange={(e) => onPatch({ ask: { kind: "", ttl: "", ...rule.ask, role: e.target.value } })}
                data-testid="rule-ask-role"
              >
                <option value="">{grammar.askDefaults.role} (default)</option>
                {grammar.askRoles.map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </select>
            </div>
            <div className="field">
              <label htmlFor={id("ask-kind")}>Kind of request</label>
              <select
                id={id("ask-kind")}
                className="select"
                value={rule.ask?.kind ?? ""}
                onChange={(e) => onPatch({ ask: { role: "", ttl: "", ...rule.ask, kind: e.target.value } })}
                data-testid="rule-ask-kind"
              >
                <option value="">{grammar.askDefaults.kind} (default)</option>
                {grammar.askKinds.map((k) => (
                  <option key={k} value={k}>
                    {k}
                  </option>
                ))}
              </select>
            </div>
            <div className="field">
              <label htmlFor={id("ask-ttl")}>Expires after</label>
              <CommitInput
                id={id("ask-ttl")}
                value={rule.ask?.ttl ?? ""}
                commit={(ttl) => onPatch({ ask: { kind: "", role: "", ...rule.ask, ttl: ttl.trim() } })}
                placeholder="default ladder"
                aria-describedby={id("ask-ttl-hint")}
                data-testid="rule-ask-ttl"
              />
              <span className="hint" id={id("ask-ttl-hint")}>
                Like 30m, 24h or 1h30m; for a veto, the time until it goes ahead.
              </span>
            </div>
          </div>
        </fieldset>
      )}

      <fieldset className={styles.fieldset} aria-describedby={id("scope-hint")}>
        <legend>
          Matches
          <Required />
        </legend>
        <p className={noScope ? styles.problemText : "hint"} id={id("scope-hint")} style={{ margin: "0 0 8px" }}>
          At least one of tool, actor, team or tier. A call matches when everything named here matches.
        </p>
        <div className={styles.formGrid}>
          <div className="field">
            <label htmlFor={id("tool")}>Tool</label>
            <ListInput
              id={id("tool")}
              list="policy-known-tools"
              values={rule.tool}
              onChange={(tool) => onPatch({ tool })}
              placeholder='shell, "browser_*"'
              data-testid="rule-tool"
            />
          </div>
          <div className="field">
            <label htmlFor={id("tier")}>{rule.tierKey === "environment" ? "Environment (tier)" : "Tier"}</label>
            <ListInput
              id={id("tier")}
              list="policy-known-tiers"
              values={rule.tier}
              onChange={(tier) => onPatch({ tier })}
              placeholder="T3, T4"
              data-testid="rule-tier"
            />
          </div>
          <div className="field">
            <label htmlFor={id("actor")}>Actor (email or user id)</label>
            <ListInput
              id={id("actor")}
              values={rule.actor}
              onChange={(actor) => onPatch({ actor })}
              placeholder="alice@example.com"
              data-testid="rule-actor"
            />
          </div>
          <div className="field">
            <label htmlFor={id("team")}>Team</label>
            <TeamPicker id={id("team")} entries={rule.team} teams={teams} onChange={(team) => onPatch({ team })} />
          </div>
        </div>
        <span className="hint">Separate several with commas; globs such as browser_* match many.</span>
      </fieldset>

      <fieldset className={styles.fieldset}>
        <legend>Arguments</legend>
        <ArgConditions
          idPrefix={id("args")}
          conditions={rule.args}
          matchers={grammar.matchers}
          hasTool={rule.tool.length > 0}
          onChange={(args) => onPatch({ args })}
        />
      </fieldset>

      {rule.otherKeys.length > 0 && (
        <p className={styles.problemText} data-testid="rule-other-keys">
          Also written in the YAML: {rule.otherKeys.join(", ")}. The form leaves these as they are; change them in the YAML view.
        </p>
      )}
    </div>
  );
}

function Required() {
  return (
    <span className={styles.required} aria-hidden="true">
      *
    </span>
  );
}

/** The datalists the rule forms' tool and tier fields suggest from (once per page). */
export function RuleSuggestions() {
  return (
    <>
      <datalist id="policy-known-tools">
        {TOOLS.map((t) => (
          <option key={t} value={t} />
        ))}
      </datalist>
      <datalist id="policy-known-tiers">
        {TIERS.map((t) => (
          <option key={t} value={t} />
        ))}
      </datalist>
    </>
  );
}
