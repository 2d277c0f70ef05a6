// "Hosted · Rein test agent": the agent runs a program of its own in the
// run's sandbox instead of Rein's loop (docs/hosted-agents.md). Its style is
// global (.badge-hosted): a CSS module imported by New run, which every page
// holds, changed the order of other pages' rules.
export function HostedBadge({ program, testId = "hosted-badge" }: { program: string; testId?: string }) {
  return (
    <span
      className="badge badge-hosted"
      title={`A hosted agent: ${program} runs in the run's sandbox, and Rein drives it over the Agent Client Protocol`}
      data-testid={testId}
    >
      Hosted · {program}
    </span>
  );
}
