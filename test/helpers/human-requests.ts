// Decided human requests as the policy's questions leave them, for tests of what is mined from
// people's answers (docs/human-requests-and-policy.md#suggested-rules).
import type { Db } from "@/server/db";

export interface DecidedShellOptions {
  state?: "APPROVED" | "REJECTED";
  /** Approved with edited arguments. */
  edited?: boolean;
  /** Who decided; null: nobody (a deadline). Default the approver. */
  by?: string | null;
  /** The tier the question was asked in (default T1); null: not recorded, as before it was. */
  tier?: string | null;
  /** The run's tier now (default T1): it may have moved since the question. */
  runTier?: string;
}

let seq = 0;

/** A run of demo-deploy in the team whose shell call the policy asked about, decided. */
export async function decidedShellQuestion(
  db: Db,
  o: DecidedShellOptions & { teamId: string; command: string; launcherId: string; approverId: string },
): Promise<void> {
  const run = await db.run.create({
    data: {
      goal: "g",
      agentName: "demo-deploy",
      agentVersion: 1,
      model: "scripted/demo",
      status: "succeeded",
      teamId: o.teamId,
      createdById: o.launcherId,
      tier: o.runTier ?? "T1",
    },
  });
  const n = ++seq;
  await db.humanRequest.create({
    data: {
      runId: run.id,
      nodeId: `n${n}`,
      checkpointId: `c${n}`,
      slot: "policy",
      kind: "approve",
      state: o.state ?? "APPROVED",
      title: `shell ${o.command}`,
      payload: JSON.stringify({
        tool: "shell",
        args: { command: o.command },
        rule: "deploys, pushes and forced deletes need approval",
        ...(o.tier === null ? {} : { tier: o.tier ?? "T1" }),
      }),
      teamId: o.teamId,
      requestedById: o.launcherId,
      expiresAt: new Date(Date.now() + 3_600_000),
      hardExpiresAt: new Date(Date.now() + 3_600_000),
      decision: JSON.stringify({ decision: "approve", ...(o.edited ? { editedArguments: { command: "git status" } } : {}) }),
      decidedById: o.by === undefined ? o.approverId : o.by,
      decidedAt: new Date(),
      channel: n % 2 ? "inbox" : "slack",
    },
  });
}
