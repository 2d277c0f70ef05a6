// "What would this draft decide for this call?" for the policy editor.
import type { Db } from "@/server/db";
import { parsePolicy, PolicyValidationError } from "./document";
import { decideCall } from "./decide";
import type { PolicyVerdict } from "./types";

export interface PreviewSample {
  /** The person the call would run for; a known user's id is matched too. */
  actorEmail?: string;
  team?: string;
  tool: string;
  args: Record<string, unknown>;
  tier: string;
}

/** Evaluates a sample call against an unsaved policy (verdicts name version 0). */
export async function previewPolicy(db: Db, source: string, sample: PreviewSample): Promise<PolicyVerdict> {
  const parsed = parsePolicy(source);
  if (!parsed.ok) throw new PolicyValidationError(parsed.errors);
  const email = sample.actorEmail?.trim().toLowerCase() || undefined;
  const user = email ? await db.user.findUnique({ where: { email }, select: { id: true } }) : null;
  return decideCall(parsed.policy, {
    actor: { id: user?.id ?? email ?? "", email },
    team: sample.team?.trim() || null,
    tool: sample.tool,
    args: sample.args,
    tier: sample.tier,
  });
}
