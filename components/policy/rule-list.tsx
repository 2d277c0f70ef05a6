"use client";
// Settings › Policy's default view: the policy's rules as a list, each with
// its form (docs/human-requests-and-policy.md#the-rule-form). The YAML text
// stays the one document: the list is read from it, and every change here is
// written back to it, comments kept. YAML the form cannot read leaves the list
// showing the last rules it could, read-only, and the text untouched.
import { useEffect, useMemo, useRef, useState } from "react";
import { EmptyState, ErrorState, SkeletonRows } from "@/components/ui";
import { addRule, moveRule, removeRule, updateRule, type EditResult } from "@/lib/policy-rule-edits";
import { readRules, type RuleFields, type RuleView } from "@/lib/policy-rules";
import { errorMessage } from "@/lib/errors";
import { trpc } from "@/lib/trpc";
import { RuleSuggestions } from "./rule-form";
import { RuleRow, type RuleProblems } from "./rule-row";
import type { PolicyErrorView } from "./types";
import styles from "./policy.module.css";

let keySeq = 0;
const newKey = () => `rule-${++keySeq}`;

export function RuleList({
  source,
  errors,
  warnings,
  onChange,
  onShowLine,
}: {
  /** The draft; null while the policy loads. */
  source: string | null;
  errors: PolicyErrorView[];
  warnings: PolicyErrorView[];
  onChange(source: string): void;
  /** Opens the YAML view at a line. */
  onShowLine(line?: number): void;
}) {
  const grammar = trpc.policy.grammar.useQuery(undefined, { staleTime: Infinity });
  const teams = trpc.teams.list.useQuery(undefined, { staleTime: 60_000 });
  const read = useMemo(() => (source === null ? null : readRules(source)), [source]);

  // The last rules the YAML could be read as: shown (read-only) while it cannot.
  const [lastGood, setLastGood] = useState<RuleView[]>([]);
  if (read?.ok && read.rules !== lastGood) setLastGood(read.rules);
  const rules = read?.ok ? read.rules : lastGood;
  const editable = !!read?.ok && !!grammar.data;

  // Stable keys, so a moved rule keeps its open form; the YAML adding or removing rules starts them afresh.
  const [keys, setKeys] = useState<string[]>([]);
  if (keys.length !== rules.length) setKeys(rules.map(newKey));
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const [notice, setNotice] = useState<{ text: string; undo?: string } | null>(null);
  const [focusKey, setFocusKey] = useState<string | null>(null);
  const toggles = useRef(new Map<string, HTMLButtonElement | null>());

  useEffect(() => {
    if (!focusKey) return;
    toggles.current.get(focusKey)?.focus();
    setFocusKey(null);
  }, [focusKey]);

  if (source === null || !read || grammar.isPending) return <SkeletonRows rows={6} columns={3} />;
  if (grammar.isError) {
    return <ErrorState title="Could not load the rule form" message={errorMessage(grammar.error)} onRetry={() => grammar.refetch()} />;
  }
  const order = grammar.data.ruleKeys;

  function apply(result: EditResult, text?: string, undo?: string) {
    onChange(result.source);
    const lost = result.lostComments.length
      ? ` It dropped ${result.lostComments.length === 1 ? "a comment" : "comments"} the YAML had there: ${result.lostComments.map((c) => `“${c}”`).join(", ")}.`
      : "";
    setNotice(text || lost ? { text: `${text ?? "Changed."}${lost}`, undo } : null);
  }

  function edit(index: number, patch: Partial<RuleFields>) {
    const result = updateRule(source!, index, patch, order);
    if (result.source !== source) apply(result, undefined, result.lostComments.length ? source! : undefined);
  }

  function move(from: number, to: number) {
    const next = [...keys];
    const [key] = next.splice(from, 1);
    next.splice(to, 0, key);
    setKeys(next);
    apply(moveRule(source!, from, to), `Rule ${from + 1} is now rule ${to + 1}.`);
    setFocusKey(key);
  }

  function remove(index: number) {
    const name = rules[index].name;
    setKeys(keys.filter((_, i) => i !== index));
    apply(removeRule(source!, index), `Deleted rule ${index + 1}${name ? ` “${name}”` : ""}.`, source!);
  }

  function add() {
    const decisions: readonly string[] = grammar.data!.decisions;
    const rule: RuleFields = {
      name: "",
      actor: [],
      team: [],
      tool: [],
      tierKey: "tier",
      tier: [],
      args: [],
      // Asking is the cautious start: nothing runs unseen until the person chooses.
      decision: decisions.includes("ask") ? "ask" : decisions[0],
      ask: null,
    };
    const result = addRule(source!, rule, order);
    const key = newKey();
    setKeys([...keys, key]);
    setOpen(new Set([...open, key]));
    apply(result, `Added rule ${result.index + 1}: name it and say what it matches.`);
    setFocusKey(key);
  }

  const problemsOf = (rule: RuleView): RuleProblems => {
    const inRule = (p: PolicyErrorView) => p.line !== undefined && p.line >= rule.lines.from && p.line <= rule.lines.to;
    return read.ok ? { errors: errors.filter(inRule), warnings: warnings.filter(inRule) } : { errors: [], warnings: [] };
  };

  return (
    <div className={styles.ruleView} data-testid="policy-rules">
      <RuleSuggestions />
      {!read.ok && (
        <div className="alert alert-warn" role="alert" data-testid="policy-rules-unreadable">
          <span style={{ flex: 1 }}>
            {read.line ? `Line ${read.line}: ` : ""}
            {read.message} The rules below are the last ones the YAML could be read as, and cannot be changed here until the YAML is fixed.
            Your text is kept as you wrote it.
          </span>
          <button type="button" className="btn btn-sm" onClick={() => onShowLine(read.line)}>
            Fix in YAML
          </button>
        </div>
      )}
      <div className={styles.ruleIntro}>
        <p className="hint" style={{ margin: 0 }}>
          Actor rules are checked first, then team, tool and tier rules; within a level the first matching rule decides. Changes here are
          written to the YAML{read.ok && read.comments > 0 ? ", and its comments are kept" : ""}. Alt+↑/↓ moves the focused rule.
        </p>
        <button type="button" className="btn btn-primary btn-sm" onClick={add} disabled={!editable} data-testid="rule-add">
          Add rule
        </button>
      </div>
      {notice && (
        <div className={`small ${styles.notice}`} role="status" data-testid="policy-rules-notice">
          <span style={{ flex: 1 }}>{notice.text}</span>
          {notice.undo && (
            <button
              type="button"
              className="btn btn-ghost btn-sm"
              onClick={() => {
                onChange(notice.undo!);
                setNotice(null);
              }}
              data-testid="policy-rules-undo"
            >
              Undo
            </button>
          )}
        </div>
      )}
      {rules.length === 0 ? (
        <EmptyState
          title="No rules"
          action={
            <button type="button" className="btn btn-primary" onClick={add} disabled={!editable}>
              Add the first rule
            </button>
          }
        >
          With no rules, every tool call is denied: when no rule matches, the default is deny. Add a rule to allow some calls or to ask a
          person about them.
        </EmptyState>
      ) : (
        <fieldset className={styles.ruleFieldset} disabled={!editable}>
          <legend className="sr-only">Rules, in the order they are checked within each level</legend>
          <ol className={styles.ruleList}>
            {rules.map((rule, i) => {
              const key = keys[i] ?? `pending-${i}`;
              return (
                <RuleRow
                  key={key}
                  index={i}
                  count={rules.length}
                  rule={rule}
                  grammar={grammar.data}
                  teams={teams.data}
                  expanded={open.has(key)}
                  problems={problemsOf(rule)}
                  toggleRef={(el) => void toggles.current.set(key, el)}
                  onToggle={() => {
                    const next = new Set(open);
                    if (!next.delete(key)) next.add(key);
                    setOpen(next);
                  }}
                  onMove={(to) => move(i, to)}
                  onDelete={() => remove(i)}
                  onPatch={(patch) => edit(i, patch)}
                />
              );
            })}
          </ol>
        </fieldset>
      )}
    </div>
  );
}
