// A tool's replay class (docs/runs.md, Replay safety), with what it means when a run resumes.
import styles from "./agents.module.css";

const MEANING: Record<string, { label: string; why: string }> = {
  pure: { label: "pure", why: "Pure: running it again changes nothing, so a resumed run may simply repeat it." },
  idempotent_with_key: {
    label: "idempotent with key",
    why: "Idempotent with a key: running it again with the same key leaves the same result, so a resumed run reuses the recorded one.",
  },
  unsafe_on_replay: {
    label: "unsafe on replay",
    why: "Unsafe on replay: running it again may do it twice. If a run stopped while it ran, it is never repeated on a guess: a person chooses.",
  },
};

export function ReplayChip({ replayClass }: { replayClass: string }) {
  const m = MEANING[replayClass] ?? { label: replayClass, why: `Replay class ${replayClass}` };
  return (
    <span
      className={`${styles.replay} ${styles[`replay-${replayClass}`] ?? ""}`}
      title={m.why}
      data-testid="replay-chip"
      data-replay={replayClass}
    >
      {m.label}
      <span className="sr-only">: {m.why}</span>
    </span>
  );
}
