"use client";
// A skill's versions (who wrote each; the reviewer's verdict on those the
// improver proposed) and the runs that loaded it.
import Link from "next/link";
import { formatDateTime } from "@/lib/format";
import { SkillStateBadge } from "./state-badge";
import { runHref, type SkillDetail } from "./format";
import styles from "@/components/improvements/improvements.module.css";

interface ReviewView {
  verdict: "approve" | "reject";
  passed: boolean;
  reasons: string[];
  triggers: { goal: string; expected: boolean; applies: boolean; by: string }[];
  reviewer: { label: string; family: string; scripted: boolean } | null;
}

export function SkillHistory({ skill }: { skill: SkillDetail }) {
  return (
    <div className={`${styles.grid} ${styles.section}`}>
      <section className="card" aria-labelledby="versions-title" data-testid="skill-versions">
        <div className="card-header">
          <h2 id="versions-title">Versions</h2>
        </div>
        <ul className={`${styles.cardBody} stack`} style={{ listStyle: "none", margin: 0, gap: 12 }}>
          {skill.versions.map((v) => (
            <li key={v.id} data-testid="skill-version" data-version={v.version} data-state={v.state}>
              <div className="row" style={{ gap: 8 }}>
                <strong>v{v.version}</strong>
                <SkillStateBadge state={v.state} />
                <span className="small muted">
                  {formatDateTime(v.createdAt)} ·{" "}
                  {v.authorRunId ? (
                    <>
                      proposed by <Link href={runHref(v.authorRunId)}>an improver run</Link>
                    </>
                  ) : (
                    `written by ${v.authorName ?? "a person"}`
                  )}
                </span>
              </div>
              {v.stateReason && <div className="small muted">{v.stateReason}</div>}
              {v.review != null && <Review review={v.review as ReviewView} />}
            </li>
          ))}
        </ul>
      </section>
      <section className="card" aria-labelledby="loaded-title" data-testid="skill-loaded-by">
        <div className="card-header">
          <h2 id="loaded-title">Runs that loaded it</h2>
        </div>
        <div className={styles.cardBody}>
          {!skill.loadedBy.length ? (
            <p className="small muted">
              No run has loaded it yet. Runs in its scope see its description in their prompt and call load_skill when their goal calls for
              it.
            </p>
          ) : (
            <ul className="stack" style={{ gap: 4, paddingLeft: 18 }}>
              {skill.loadedBy.map((u) => (
                <li key={`${u.runId}-${u.toolCallId ?? ""}`} className="small" data-testid="skill-loaded-run">
                  <Link href={runHref(u.runId)}>{u.run?.goal ? u.run.goal.slice(0, 80) : `Run ${u.runId.slice(0, 8)}`}</Link>
                  <span className="muted">
                    {" "}
                    · v{u.version ?? "?"} · {u.run?.agentName ?? "?"} · {u.run?.status ?? "?"} · {formatDateTime(u.at)}
                  </span>
                </li>
              ))}
            </ul>
          )}
        </div>
      </section>
    </div>
  );
}

function Review({ review: r }: { review: ReviewView }) {
  return (
    <div className="small" style={{ marginTop: 6, paddingLeft: 10, borderLeft: "2px solid var(--border)" }} data-testid="skill-review">
      <div>
        <strong className={r.passed ? styles.caseOk : styles.caseFail}>{r.passed ? "✓ Passed review" : "✗ Failed review"}</strong>{" "}
        <span className="muted">
          reviewer {r.reviewer ? `${r.reviewer.label} (${r.reviewer.family}${r.reviewer.scripted ? ", scripted" : ""})` : "none"} said{" "}
          {r.verdict}
        </span>
      </div>
      {r.reasons.map((reason, n) => (
        <div key={n}>{reason}</div>
      ))}
      {r.triggers.length > 0 && (
        <ul style={{ margin: "4px 0 0", paddingLeft: 18 }}>
          {r.triggers.map((t, n) => (
            <li key={n} className={t.applies === t.expected ? undefined : styles.caseFail}>
              {t.applies === t.expected ? "✓" : "✗"} {t.expected ? "should" : "should not"} apply to “{t.goal}” —{" "}
              {t.applies ? "applies" : "does not apply"} ({t.by})
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
