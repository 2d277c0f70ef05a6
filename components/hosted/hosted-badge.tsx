// "Hosted · Rein test agent": the agent runs a program of its own in the
// run's sandbox instead of Rein's loop (docs/hosted-agents.md).
import styles from "./hosted.module.css";

export function HostedBadge({ program, testId = "hosted-badge" }: { program: string; testId?: string }) {
  return (
    <span
      className={`badge ${styles.hostedBadge}`}
      title={`A hosted agent: ${program} runs in the run's sandbox, and Rein drives it over the Agent Client Protocol`}
      data-testid={testId}
    >
      Hosted · {program}
    </span>
  );
}
