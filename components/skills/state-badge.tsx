import styles from "@/components/improvements/improvements.module.css";

const HINTS: Record<string, string> = {
  proposed: "Written by the improver, waiting for its review",
  active: "Listed in the prompts of runs in its scope",
  disabled: "Switched off by a person",
  rejected: "Its review turned it down",
  superseded: "A newer version replaced it",
};

export function SkillStateBadge({ state }: { state: string }) {
  return (
    <span className={`badge ${styles[`state-${state}`] ?? ""}`} title={HINTS[state]} data-testid="skill-state" data-state={state}>
      <span className="badge-dot" aria-hidden="true" />
      {state}
    </span>
  );
}
