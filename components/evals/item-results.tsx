"use client";
// The items of an experiment: one dot per epoch (green passed, red not, grey
// no verdict yet) linking to that run, the score, cost and time, why it
// failed; a row opens (click, Enter or Space) to each scorer's result.
import Link from "next/link";
import { Fragment, useState, type KeyboardEvent } from "react";
import { EmptyState } from "@/components/ui";
import { formatScore } from "@/lib/eval-format";
import { formatDuration, formatCost } from "@/lib/format";
import type { ItemResult, TrialResult } from "./types";
import styles from "./experiments.module.css";

function dotClass(t: TrialResult): string {
  if (t.passed === true) return styles["dot-pass"];
  if (t.passed === false) return styles["dot-fail"];
  if (t.status === "running" || t.status === "scoring") return styles["dot-running"];
  return styles["dot-none"];
}

function dotLabel(t: TrialResult): string {
  const verdict = t.passed === true ? "passed" : t.passed === false ? "did not pass" : t.status === "failed" ? "could not run" : t.status;
  return `Epoch ${t.epoch}: ${verdict}`;
}

export function EpochDots({ epochs }: { epochs: TrialResult[] }) {
  return (
    <span className={styles.dots}>
      {epochs.map((t) =>
        t.runId ? (
          <Link
            key={t.epoch}
            href={`/runs/${t.runId}`}
            className={`${styles.dot} ${dotClass(t)}`}
            title={`${dotLabel(t)} — open its run`}
            aria-label={`${dotLabel(t)}, open its run`}
            onClick={(e) => e.stopPropagation()}
            data-testid="epoch-dot"
            data-passed={String(t.passed)}
          />
        ) : (
          <span
            key={t.epoch}
            className={`${styles.dot} ${dotClass(t)}`}
            title={dotLabel(t)}
            role="img"
            aria-label={dotLabel(t)}
            data-testid="epoch-dot"
            data-passed={String(t.passed)}
          />
        ),
      )}
    </span>
  );
}

/** Why an item did not pass, in the scorers' words: the first epoch that failed. */
export function whyNot(item: ItemResult): string | null {
  if (item.passed) return null;
  const failed = item.epochs.find((t) => t.passed === false) ?? item.epochs.find((t) => t.error);
  if (!failed) return item.samples === 0 ? "Not scored yet" : null;
  if (failed.error) return failed.error;
  const scorer = failed.scorers.find((s) => !("skipped" in s.result) && !s.result.passed);
  const parts = [failed.detail, scorer && !("skipped" in scorer.result) ? `${scorer.kind}: ${scorer.result.detail}` : null].filter(Boolean);
  return parts.join(" — ") || null;
}

/** Enter or Space on a focused row opens or closes it, as a click does. */
export function onRowKey(toggle: () => void) {
  return (e: KeyboardEvent<HTMLElement>) => {
    if (e.target !== e.currentTarget || (e.key !== "Enter" && e.key !== " ")) return;
    e.preventDefault();
    toggle();
  };
}

export function Chevron({ open }: { open: boolean }) {
  return (
    <span className={`${styles.chevron}${open ? ` ${styles.chevronOpen}` : ""}`} aria-hidden="true">
      ▸
    </span>
  );
}

export function ItemResults({ items }: { items: ItemResult[] }) {
  const [open, setOpen] = useState<Set<string>>(new Set());
  const toggle = (key: string) =>
    setOpen((s) => {
      const next = new Set(s);
      if (!next.delete(key)) next.add(key);
      return next;
    });
  if (items.length === 0) {
    return <EmptyState title="No items">This experiment has no trials to show.</EmptyState>;
  }
  return (
    <div className="table-wrap">
      <table className="table" data-testid="item-results">
        <thead>
          <tr>
            <th scope="col">Item</th>
            <th scope="col">Goal</th>
            <th scope="col">Epochs</th>
            <th scope="col" className="num">
              Score
            </th>
            <th scope="col" className="num">
              Cost
            </th>
            <th scope="col" className="num">
              Duration
            </th>
            <th scope="col">Why not passed</th>
          </tr>
        </thead>
        <tbody>
          {items.map((item) => {
            const expanded = open.has(item.key);
            const why = whyNot(item);
            return (
              <Fragment key={item.key}>
                <tr
                  className={styles.expandRow}
                  tabIndex={0}
                  aria-expanded={expanded}
                  onClick={() => toggle(item.key)}
                  onKeyDown={onRowKey(() => toggle(item.key))}
                  data-testid="item-row"
                  data-item={item.key}
                  data-passed={String(item.passed)}
                >
                  <td className="nowrap">
                    <Chevron open={expanded} /> <span className="mono">{item.key}</span>{" "}
                    {item.flaky && (
                      <span className="badge badge-outline" title="Passed in some epochs, not all" data-testid="flaky-badge">
                        flaky
                      </span>
                    )}
                  </td>
                  <td>
                    <div className={styles.goal} title={item.goal}>
                      {item.goal}
                    </div>
                  </td>
                  <td>
                    <EpochDots epochs={item.epochs} />
                  </td>
                  <td className="num">{formatScore(item.score)}</td>
                  <td className="num">{formatCost(item.costUsd)}</td>
                  <td className="num">{formatDuration(item.durationMs)}</td>
                  <td>
                    <div className={styles.why} data-testid="item-why">
                      {item.passed ? <span className="badge badge-ok">passed</span> : why}
                    </div>
                  </td>
                </tr>
                {expanded && (
                  <tr data-testid="item-detail">
                    <td colSpan={7} className={styles.detailCell}>
                      <TrialScorers item={item} />
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function TrialScorers({ item }: { item: ItemResult }) {
  return (
    <div className="stack" style={{ gap: 14 }}>
      {item.epochs.map((t) => (
        <div key={t.epoch} className="stack" style={{ gap: 4 }}>
          <div className="row small" style={{ flexWrap: "wrap" }}>
            <strong>Epoch {t.epoch}</strong>
            <span className="muted">
              {t.status}
              {t.runStatus ? ` · run ${t.runStatus}` : ""} · {t.modelCalls} model calls · score {formatScore(t.score)}
            </span>
            {t.runId && <Link href={`/runs/${t.runId}`}>Open the run</Link>}
          </div>
          {t.detail && <div className="small">{t.detail}</div>}
          {t.error && <div className="error-box">{t.error}</div>}
          {t.scorers.length > 0 && (
            <table className={styles.scorerTable} data-testid="scorer-results">
              <thead>
                <tr>
                  <th scope="col">Scorer</th>
                  <th scope="col">Result</th>
                  <th scope="col">Score</th>
                  <th scope="col">Detail</th>
                </tr>
              </thead>
              <tbody>
                {t.scorers.map((s, i) => (
                  <tr key={`${s.kind}-${i}`}>
                    <td className="mono nowrap">
                      {s.kind}
                      {s.required && <span className="muted"> · required</span>}
                      {s.weight !== 1 && <span className="muted"> · weight {s.weight}</span>}
                    </td>
                    <td>
                      {"skipped" in s.result ? (
                        <span className="badge">skipped</span>
                      ) : s.result.passed ? (
                        <span className="badge badge-ok">passed</span>
                      ) : (
                        <span className="badge badge-error">failed</span>
                      )}
                    </td>
                    <td className="num">{"skipped" in s.result ? "—" : formatScore(s.result.score)}</td>
                    <td>{"skipped" in s.result ? s.result.reason : s.result.detail}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      ))}
    </div>
  );
}
