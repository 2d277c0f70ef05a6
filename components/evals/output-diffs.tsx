"use client";
// A compared item side by side in Monaco's diff editor (loaded on demand, as
// the Files tab loads it): the candidate's output against the item's expected
// text, the baseline's output against the candidate's, and the tool calls of
// both, one tool a line. Links open the runs of either side.
import dynamic from "next/dynamic";
import Link from "next/link";
import { EditorLoading } from "@/components/files/editor-loading";
import type { ComparedItem } from "./types";
import styles from "./experiments.module.css";

const CodeDiff = dynamic(() => import("@/components/files/monaco").then((m) => m.CodeDiff), {
  ssr: false,
  loading: () => <EditorLoading />,
});

function DiffBox({
  title,
  left,
  right,
  original,
  modified,
  path,
  testId,
}: {
  title: string;
  left: string;
  right: string;
  original: string;
  modified: string;
  path: string;
  testId: string;
}) {
  const prose = path.endsWith(".md");
  return (
    <div className={styles.diffBox} data-testid={testId}>
      <div className={styles.diffTitle}>
        <span>{title}</span>
        <span className="spacer" />
        <span className="muted small" style={{ fontWeight: 400 }}>
          left: {left} · right: {right}
        </span>
      </div>
      <div className={styles.diffHost}>
        <CodeDiff
          path={path}
          original={original}
          modified={modified}
          label={`${title}: ${left} on the left, ${right} on the right`}
          wrap={prose}
        />
      </div>
    </div>
  );
}

function RunLinks({ label, runIds }: { label: string; runIds: string[] }) {
  if (runIds.length === 0) return <span className="muted">{label}: no runs</span>;
  return (
    <span className="row" style={{ gap: 6, flexWrap: "wrap" }}>
      <span className="muted">{label}:</span>
      {runIds.map((id, i) => (
        <Link key={id} href={`/runs/${id}`} data-testid="compare-run-link">
          run {i + 1}
        </Link>
      ))}
    </span>
  );
}

export function OutputDiffs({ item }: { item: ComparedItem }) {
  const base = item.baseline;
  const cand = item.candidate;
  return (
    <div className="stack" style={{ gap: 12 }} data-testid="compare-item-detail">
      <div className={styles.sides}>
        <RunLinks label="Baseline runs" runIds={base?.runIds ?? []} />
        <RunLinks label="Candidate runs" runIds={cand?.runIds ?? []} />
      </div>
      <p className="small muted">{item.goal}</p>
      <div className={styles.diffs}>
        {cand && item.expectedText !== null && (
          <DiffBox
            title="Candidate output vs expected"
            left="expected"
            right="candidate"
            original={item.expectedText}
            modified={cand.finalText}
            path="output.md"
            testId="diff-expected"
          />
        )}
        {base && cand && (
          <DiffBox
            title="Output"
            left="baseline"
            right="candidate"
            original={base.finalText}
            modified={cand.finalText}
            path="output.md"
            testId="diff-output"
          />
        )}
        {base && cand && (
          <DiffBox
            title="Tool calls"
            left="baseline"
            right="candidate"
            original={base.toolSequence.join("\n")}
            modified={cand.toolSequence.join("\n")}
            path="tools.txt"
            testId="diff-tools"
          />
        )}
        {(!base || !cand) && (
          <p className="muted">Only the {base ? "baseline" : "candidate"} ran this item, so there is nothing to put beside it.</p>
        )}
      </div>
    </div>
  );
}
