"use client";
// Settings › Tiers (admins, docs/desktops-and-tiers.md#settings--tiers): per
// compute tier whether it is on, how many environments are kept warm, when an
// idle one is left, what an hour costs, the complexity a task needs to enter it
// and whose consent it needs. The browser checks the form; the server checks
// again and audits.
import Link from "next/link";
import { useEffect, useMemo, useState, type FormEvent } from "react";
import { RequireRole } from "@/components/require-role";
import { ErrorBlock, FieldError, PageShell, SkeletonRows } from "@/components/ui";
import { errorMessage } from "@/lib/errors";
import { issuesOf } from "@/lib/field-errors";
import { draftOf, parseDraft, serverErrors, type TierDraft, type TierDraftRow, type TierErrors, type TierId } from "@/lib/tier-draft";
import { trpc, type RouterOutputs } from "@/lib/trpc";
import { TierRow } from "./tier-row";
import styles from "./tiers.module.css";

type Overview = RouterOutputs["tiers"]["get"];

export function TiersPage() {
  return (
    <RequireRole role="admin" title="Tiers need the admin role" why="Only admins can change the compute tiers agents may use.">
      {() => <Tiers />}
    </RequireRole>
  );
}

function Tiers() {
  const overview = trpc.tiers.get.useQuery();
  return (
    <div className="page">
      <div className="page-header">
        <div className="page-title-block">
          <h1>Tiers</h1>
          <p>
            Where agents work. Runs start on the tier their agent needs; an agent asks to move up with <code>upgrade_tier</code>, and gets
            the tier only when it is on, the task&apos;s complexity reaches its threshold, the budget covers its estimated cost and, if the
            tier asks for it, a person consented.
          </p>
        </div>
      </div>
      <PageShell query={overview} loading={<SkeletonRows rows={5} columns={7} />} failed="Could not load the tiers">
        {(data) => <TiersForm overview={data} />}
      </PageShell>
    </div>
  );
}

function TiersForm({ overview }: { overview: Overview }) {
  const utils = trpc.useUtils();
  const save = trpc.tiers.save.useMutation();
  const saved = useMemo(() => draftOf(overview.settings), [overview.settings]);
  const [draft, setDraft] = useState<TierDraft>(saved);
  const [errors, setErrors] = useState<TierErrors>({});
  const [other, setOther] = useState<string | null>(null);
  const [savedAt, setSavedAt] = useState<number | null>(null);
  useEffect(() => setDraft(saved), [saved]);
  const dirty = JSON.stringify(draft) !== JSON.stringify(saved);

  function change(tier: TierId, patch: Partial<TierDraftRow>) {
    setDraft((d) => ({ ...d, [tier]: { ...d[tier], ...patch } }));
    setErrors((e) =>
      Object.fromEntries(
        Object.entries(e).filter(([k]) => !(k.startsWith(`${tier}.`) && Object.keys(patch).some((f) => k === `${tier}.${f}`))),
      ),
    );
    setSavedAt(null);
    setOther(null);
  }

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const parsed = parseDraft(draft);
    if (!parsed.ok) {
      setErrors(parsed.errors);
      return;
    }
    setErrors({});
    setOther(null);
    try {
      await save.mutateAsync(parsed.value);
      setSavedAt(Date.now());
      await utils.tiers.get.invalidate();
    } catch (err) {
      const server = serverErrors(issuesOf(err), errorMessage(err));
      setErrors(server.errors);
      setOther(server.other);
    }
  }

  const count = Object.keys(errors).length;
  return (
    <form className="stack" style={{ gap: 16 }} onSubmit={onSubmit} noValidate data-testid="tiers-form">
      <section className="card">
        <div className="table-wrap">
          <table className={`table ${styles.table}`}>
            <thead>
              <tr>
                <th>Tier</th>
                <th>On</th>
                <th title="Environments kept started, so a run gets one without waiting">Warm pool</th>
                <th title="Minutes without use after which the run leaves the tier (T2: no browser tool call); blank: never">
                  Leave when idle (min)
                </th>
                <th>Cost per hour (USD)</th>
                <th title="The task's complexity score (0 to 1) must reach this to enter the tier">Complexity threshold</th>
                <th>Consent to enter</th>
                <th title="An hour's price for at least the idle timeout">Estimate</th>
              </tr>
            </thead>
            <tbody>
              {overview.tiers.map((info) => (
                <TierRow key={info.id} info={info} row={draft[info.id]} errors={errors} onChange={(patch) => change(info.id, patch)} />
              ))}
            </tbody>
          </table>
        </div>
        <div className={styles.footer}>
          <button type="submit" className="btn btn-primary" disabled={save.isPending || !dirty} data-testid="tiers-save">
            {save.isPending ? "Saving…" : "Save"}
          </button>
          <button
            type="button"
            className="btn"
            disabled={save.isPending}
            onClick={() => setDraft(draftOf(overview.defaults))}
            data-testid="tiers-defaults"
          >
            Use the defaults
          </button>
          {dirty && !save.isPending && (
            <button type="button" className="btn btn-ghost" onClick={() => setDraft(saved)} data-testid="tiers-discard">
              Discard changes
            </button>
          )}
          <span className="spacer" />
          {count > 0 && (
            <FieldError message={count === 1 ? "One field needs fixing" : `${count} fields need fixing`} testId="tiers-error-count" live />
          )}
          {savedAt && !dirty && count === 0 && (
            <span className="muted small" role="status" data-testid="tiers-saved">
              Saved. Warm pools follow at once; the next upgrade uses the new rules.
            </span>
          )}
          {!overview.saved && !dirty && !savedAt && <span className="muted small">The defaults are in force.</span>}
        </div>
        <ErrorBlock message={other} style={{ margin: "0 16px 16px" }} testId="tiers-error" />
      </section>
      <div className="small muted stack" style={{ gap: 6 }}>
        <p>
          <strong>Consent.</strong> By default an agent that asks for T2 (a desktop with Chromium) waits until a person with the operator
          role or above approves in the <Link href="/inbox">Inbox</Link>; a rejection is the agent&apos;s answer. Choose “Nobody: the rules
          grant it” to let agents move on their own once the other rules allow it.
        </p>
        <p>
          <strong>Complexity.</strong> A run&apos;s score is the one given at launch, else its agent&apos;s{" "}
          <code>guardrails.complexity</code>, else 0.5. The demo-browser agent has 0.6, above T2&apos;s default threshold of 0.55.
        </p>
        <p>
          <strong>Idle.</strong> A run on T2 that makes no browser tool call for the idle timeout gives its desktop back and returns to T1;
          so does every run when it ends. Changes are recorded in the <Link href="/audit">audit log</Link> as tiers.updated.
        </p>
      </div>
    </form>
  );
}
