"use client";
// Routing rules per task class, sensitivity pools and each team's pool, saved
// together with one button.
import { useState } from "react";
import { ErrorBlock, FieldError, PageShell, SkeletonRows } from "@/components/ui";
import { issuesOf } from "@/lib/field-errors";
import {
  TASK_CLASS_ORDER,
  TASK_CLASS_HINTS,
  STRATEGY_HINTS,
  routingDirty,
  routingDraftOf,
  routingIssues,
  toRoutingInput,
  type RoutingDraft,
  type RuleDraft,
  type Strategy,
} from "@/lib/routing-draft";
import { trpc, type RouterOutputs } from "@/lib/trpc";
import { PoolsEditor } from "./pools-editor";
import { RefList } from "./ref-list";
import styles from "./models.module.css";

type RoutingData = RouterOutputs["models"]["routing"];

export function RoutingSection({ refs }: { refs: string[] }) {
  const routing = trpc.models.routing.useQuery();
  const [savedAt, setSavedAt] = useState<number | null>(null);
  return (
    <section className="card" aria-labelledby="routing-title" data-testid="routing-section">
      <div className="card-header">
        <h2 id="routing-title">Routing</h2>
      </div>
      <p className={`${styles.sectionIntro} card-body`} style={{ paddingBottom: 0 }}>
        Which model serves a call. A run on <strong>auto</strong> follows the rule of its agent&apos;s task class; a run or agent naming a
        model tries it first and fails over to the rule&apos;s other candidates. A model that fails with a rate limit, a server error or a
        timeout cools down and is tried last.
      </p>
      <PageShell query={routing} loading={<SkeletonRows rows={4} columns={3} />} failed="Could not load the routing rules">
        {(data) => (
          <RoutingEditor
            key={String(data.routing.updatedAt)}
            data={data}
            refs={refs}
            savedAt={savedAt}
            onSaved={() => setSavedAt(Date.now())}
          />
        )}
      </PageShell>
    </section>
  );
}

function RoutingEditor({ data, refs, savedAt, onSaved }: { data: RoutingData; refs: string[]; savedAt: number | null; onSaved(): void }) {
  const utils = trpc.useUtils();
  const [saved, setSaved] = useState(() => routingDraftOf(data.routing));
  const [draft, setDraft] = useState<RoutingDraft>(saved);
  const save = trpc.models.setRouting.useMutation({
    onSuccess: async (config) => {
      setSaved(routingDraftOf(config));
      onSaved();
      await utils.models.routing.invalidate();
    },
  });
  const dirty = routingDirty(draft, saved);
  const issues = save.error ? routingIssues(issuesOf(save.error)) : {};
  const edit = (next: RoutingDraft) => {
    setDraft(next);
    if (save.error) save.reset();
  };
  const setRule = (c: keyof RoutingDraft["rules"], rule: RuleDraft) => edit({ ...draft, rules: { ...draft.rules, [c]: rule } });

  return (
    <form onSubmit={(e) => (e.preventDefault(), dirty && save.mutate(toRoutingInput(draft)))} noValidate>
      <h3 className="card-body" style={{ paddingBottom: 4, fontSize: 14 }}>
        Rules per task class
      </h3>
      <div data-testid="routing-rules">
        {TASK_CLASS_ORDER.map((c) => {
          const rule = draft.rules[c];
          return (
            <div key={c} className={styles.rule} data-testid="routing-rule" data-task-class={c}>
              <div className={styles.ruleHead}>
                <h3>{c}</h3>
                <p className="small muted">{TASK_CLASS_HINTS[c]}</p>
              </div>
              <div className="stack" style={{ gap: 8 }}>
                <div className="row" style={{ gap: 8, alignItems: "center", flexWrap: "wrap" }}>
                  <label className="small" htmlFor={`strategy-${c}`}>
                    Strategy
                  </label>
                  <select
                    id={`strategy-${c}`}
                    className="select"
                    style={{ width: 150 }}
                    value={rule.strategy}
                    onChange={(e) => setRule(c, { ...rule, strategy: e.target.value as Strategy })}
                    data-testid="routing-strategy"
                  >
                    <option value="ordered">ordered</option>
                    <option value="cheapest">cheapest</option>
                  </select>
                  <span className="hint">{STRATEGY_HINTS[rule.strategy]}</span>
                </div>
                <RefList
                  items={rule.candidates}
                  options={refs}
                  ordered
                  label={`${c} candidates`}
                  empty={
                    'No candidates: "auto" may use every configured model (the strong enough first), and a run naming a model has no failover.'
                  }
                  onChange={(candidates) => setRule(c, { ...rule, candidates })}
                  testId={`candidates-${c}`}
                />
                {issues[`rules.${c}`]?.map((m) => (
                  <FieldError key={m} message={m} />
                ))}
              </div>
            </div>
          );
        })}
      </div>
      <PoolsEditor draft={draft} refs={refs} teams={data.teams} issues={issues} onChange={edit} />
      <div className={styles.saveBar}>
        <button type="submit" className="btn btn-primary" disabled={!dirty || save.isPending} data-testid="routing-save">
          {save.isPending && <span className="spinner" aria-hidden="true" />}
          {save.isPending ? "Saving…" : "Save routing"}
        </button>
        {dirty && !save.error && (
          <span className="small muted" data-testid="routing-dirty">
            Unsaved changes
          </span>
        )}
        {!dirty && savedAt && (
          <span className="small" style={{ color: "var(--green)" }} role="status" data-testid="routing-saved">
            Saved. New model calls follow these rules.
          </span>
        )}
        {dirty && (
          <button type="button" className="btn btn-ghost btn-sm" onClick={() => edit(saved)}>
            Undo changes
          </button>
        )}
      </div>
      {save.error && <ErrorBlock prefix="Not saved" error={save.error} style={{ margin: "0 16px 16px" }} testId="routing-error" />}
    </form>
  );
}
