// What ISOLATE hands the improver: the friction in words and the failing
// calls (arguments and errors, already redacted by the run store), and the
// goal the improver run is launched with.
export interface CycleEvidence {
  kind: string;
  title: string;
  tool?: string;
  count: number;
  agent: string;
  /** The goal of the run that struggled. */
  goal: string;
  calls: Array<{ tool: string; args: unknown; error: string; runId: string; toolCallId?: string; spanId?: string }>;
}

const MAX_GOAL = 18_000;

export function improverGoal(e: CycleEvidence): string {
  const lines = [
    `Friction Rein recorded for the agent ${e.agent}: ${e.title}`,
    `Kind: ${e.kind}${e.tool ? ` · tool: ${e.tool}` : ""} · ${e.count} time(s) in one run.`,
    `The agent's goal was: ${JSON.stringify(e.goal)}`,
    "",
    "Evidence (the failing calls, oldest first):",
    ...e.calls.map((c, i) => `${i + 1}. ${c.tool} ${JSON.stringify(c.args)}\n   -> ${c.error}`),
    "",
    "Write a runtime tool with propose_runtime_tool (a JSON schema for its arguments, JavaScript defining run(args), trigger cases taken from this evidence) that makes the chore a single reliable call, then call test_runtime_tool with its name. " +
      "You have 3 attempts and a time box; Rein's gate runs the cases again and decides whether it goes live.",
  ];
  const goal = lines.join("\n");
  return goal.length > MAX_GOAL ? `${goal.slice(0, MAX_GOAL)}\n… (evidence cut)` : goal;
}
