"use client";
// Two versions side by side: a table of the fields that changed, and the
// instructions line by line (added and removed lines marked + and −, not by
// colour alone).
import { EmptyState, PageShell, SkeletonRows } from "@/components/ui";
import { trpc } from "@/lib/trpc";
import styles from "./agents.module.css";

const MARK = { same: " ", add: "+", del: "−" } as const;
const SAID = { same: "", add: "added: ", del: "removed: " } as const;

export function VersionDiff({ name, from, to }: { name: string; from: number; to: number }) {
  const diff = trpc.agents.diff.useQuery({ name, from, to }, { staleTime: Infinity });
  return (
    <PageShell query={diff} loading={<SkeletonRows rows={4} columns={3} />} failed="Could not compare the versions">
      {(data) => {
        const { changes, instructions } = data;
        const instructionsChanged = instructions.some((l) => l.kind !== "same");
        if (changes.length === 0 && !instructionsChanged) {
          return (
            <EmptyState icon="=" title={`Versions ${from} and ${to} are the same`}>
              Nothing differs between them.
            </EmptyState>
          );
        }
        return (
          <div className="stack" data-testid="agent-diff">
            <h3>
              Version {from} → version {to}
            </h3>
            {changes.filter((c) => c.field !== "instructions").length > 0 && (
              <div className="table-wrap">
                <table className={`table ${styles.diffTable}`} data-testid="agent-diff-fields">
                  <thead>
                    <tr>
                      <th scope="col">Field</th>
                      <th scope="col">Version {from}</th>
                      <th scope="col">Version {to}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {changes
                      .filter((c) => c.field !== "instructions")
                      .map((c) => (
                        <tr key={c.field} data-field={c.field}>
                          <td>
                            <strong>{c.label}</strong>
                          </td>
                          <td className={styles.before}>
                            <span className={styles.diffValue}>{c.before || "—"}</span>
                          </td>
                          <td>
                            <span className={styles.diffValue}>{c.after || "—"}</span>
                          </td>
                        </tr>
                      ))}
                  </tbody>
                </table>
              </div>
            )}
            <div className="stack" style={{ gap: 6 }}>
              <h4 className="label">Instructions{instructionsChanged ? "" : " (unchanged)"}</h4>
              {instructionsChanged && (
                <ol className={styles.lines} data-testid="agent-diff-instructions" aria-label={`Instructions, version ${from} to ${to}`}>
                  {instructions.map((l, i) => (
                    <li
                      key={i}
                      className={`${styles.line} ${l.kind !== "same" ? styles[`line-${l.kind}`] : ""}`}
                      data-kind={l.kind}
                      data-testid="diff-line"
                    >
                      <span className={styles.marker} aria-hidden="true">
                        {MARK[l.kind]}
                      </span>
                      <span>
                        {SAID[l.kind] && <span className="sr-only">{SAID[l.kind]}</span>}
                        {l.text || "\u00a0"}
                      </span>
                    </li>
                  ))}
                </ol>
              )}
            </div>
          </div>
        );
      }}
    </PageShell>
  );
}
