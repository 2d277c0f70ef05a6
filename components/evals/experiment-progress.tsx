// An experiment's trials as one bar: passed, not passed, under way, could not
// run, canceled; the empty rest is still pending. The words beside it say the
// same, so the colours are never the only way to read it.
import { progressLine, progressSegments, type Progress, type SegmentKind } from "@/lib/eval-format";
import styles from "./experiments.module.css";

const LABELS: Record<SegmentKind, string> = {
  passed: "passed",
  not_passed: "not passed",
  running: "running",
  failed: "could not run",
  canceled: "canceled",
};

export function ExperimentProgress({
  progress,
  large = false,
  legend = false,
  testId,
}: {
  progress: Progress;
  large?: boolean;
  legend?: boolean;
  testId?: string;
}) {
  const segments = progressSegments(progress);
  const line = progressLine(progress);
  return (
    <div className={styles.progress} data-testid={testId} data-done={progress.done} data-total={progress.total}>
      <div
        className={`${styles.bar}${large ? ` ${styles.barLarge}` : ""}`}
        role="progressbar"
        aria-label="Trials finished"
        aria-valuemin={0}
        aria-valuemax={progress.total}
        aria-valuenow={progress.done + progress.failed + progress.canceled}
        aria-valuetext={line}
      >
        {segments.map((s) => (
          <span
            key={s.kind}
            className={`${styles.segment} ${styles[`seg-${s.kind}`]}`}
            style={{ width: `${s.share * 100}%` }}
            title={`${s.count} ${LABELS[s.kind]}`}
          />
        ))}
      </div>
      {legend ? (
        <div className={styles.legend} data-testid={testId ? `${testId}-legend` : undefined}>
          <span>{line}</span>
          {segments.map((s) => (
            <span key={s.kind}>
              <span className={`${styles.legendSwatch} ${styles[`seg-${s.kind}`]}`} aria-hidden="true" />
              {s.count} {LABELS[s.kind]}
            </span>
          ))}
        </div>
      ) : (
        <span className="small muted">{line}</span>
      )}
    </div>
  );
}
