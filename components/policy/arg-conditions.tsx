"use client";
// A rule's argument conditions (`args:`): which argument, how it is matched
// (the schema's matchers) and against what. A new row is written to the YAML
// once it names an argument; a matcher the form cannot show is left to the
// YAML view.
import { useState } from "react";
import { FieldError } from "@/components/ui";
import type { ArgCondition } from "@/lib/policy-rules";
import { CommitInput, splitList } from "./commit-input";
import styles from "./policy.module.css";

const HINTS: Record<string, string> = {
  equals: "the whole value",
  pattern: "a regular expression (RE2)",
  prefix: "how it starts",
  contains: "text it contains",
  oneOf: "values, separated by commas",
};

export function ArgConditions({
  idPrefix,
  conditions,
  matchers,
  hasTool,
  onChange,
}: {
  idPrefix: string;
  conditions: ArgCondition[];
  matchers: string[];
  hasTool: boolean;
  onChange(conditions: ArgCondition[]): void;
}) {
  const [pending, setPending] = useState<ArgCondition | null>(null);
  const [nameError, setNameError] = useState<{ row: number; message: string } | null>(null);
  const rows = pending ? [...conditions, pending] : conditions;

  function change(row: number, next: ArgCondition) {
    if (row === conditions.length) {
      // The pending row: written once it names an argument no other row uses.
      if (!next.name.trim() || conditions.some((c) => c.name === next.name)) {
        setPending(next);
        setNameError(next.name.trim() ? { row, message: "Another condition checks this argument" } : null);
        return;
      }
      setPending(null);
      setNameError(null);
      onChange([...conditions, next]);
      return;
    }
    if (!next.name.trim() || conditions.some((c, i) => i !== row && c.name === next.name)) {
      setNameError({ row, message: next.name.trim() ? "Another condition checks this argument" : "Name the argument" });
      return;
    }
    setNameError(null);
    onChange(conditions.map((c, i) => (i === row ? next : c)));
  }

  return (
    <div className="stack" style={{ gap: 8 }} data-testid="rule-args">
      {rows.length === 0 && <span className="hint">No conditions: the rule matches whatever the arguments are.</span>}
      {rows.map((c, row) => {
        const id = `${idPrefix}-arg-${row}`;
        const error = nameError?.row === row ? nameError.message : null;
        if (c.kind === "yaml") {
          return (
            <div key={row} className={styles.argRow} data-testid="rule-arg">
              <span className="mono small">{c.name}</span>
              <code className="small">{c.values[0]}</code>
              <span className="hint">This matcher can be edited in the YAML view.</span>
            </div>
          );
        }
        return (
          <div key={row} className={styles.argRow} data-testid="rule-arg">
            <div className="field">
              <label htmlFor={`${id}-name`}>
                Argument
                <span className={styles.required} aria-hidden="true">
                  *
                </span>
              </label>
              <CommitInput
                id={`${id}-name`}
                value={c.name}
                commit={(name) => change(row, { ...c, name: name.trim() })}
                placeholder="command"
                required
                aria-invalid={error ? true : undefined}
                aria-describedby={error ? `${id}-name-error` : undefined}
                data-testid="rule-arg-name"
              />
              <FieldError id={`${id}-name-error`} message={error} />
            </div>
            <div className="field">
              <label htmlFor={`${id}-kind`}>Matcher</label>
              <select
                id={`${id}-kind`}
                className="select"
                value={c.kind}
                onChange={(e) => change(row, { ...c, kind: e.target.value })}
                data-testid="rule-arg-kind"
              >
                {matchers.map((m) => (
                  <option key={m} value={m}>
                    {m}
                  </option>
                ))}
              </select>
            </div>
            <div className="field">
              <label htmlFor={`${id}-value`}>{c.kind === "oneOf" ? "Values" : "Value"}</label>
              <CommitInput
                id={`${id}-value`}
                className="input mono"
                value={c.values.join(", ")}
                commit={(text) => change(row, { ...c, values: c.kind === "oneOf" ? splitList(text) : [text] })}
                placeholder={HINTS[c.kind]}
                title={HINTS[c.kind]}
                data-testid="rule-arg-value"
              />
            </div>
            <button
              type="button"
              className="btn btn-ghost btn-sm"
              aria-label={`Remove the condition on ${c.name || "a new argument"}`}
              onClick={() => {
                setNameError(null);
                if (row === conditions.length) setPending(null);
                else onChange(conditions.filter((_, i) => i !== row));
              }}
            >
              Remove
            </button>
          </div>
        );
      })}
      <div className="row">
        <button
          type="button"
          className="btn btn-sm"
          disabled={!!pending || !hasTool}
          title={hasTool ? undefined : "Argument conditions need a tool"}
          onClick={() => setPending({ name: "", kind: matchers[0] ?? "equals", values: [""] })}
          data-testid="rule-arg-add"
        >
          Add condition
        </button>
        {!hasTool && <span className="hint">Name a tool first: conditions check that tool’s arguments.</span>}
      </div>
    </div>
  );
}
