// upgrade_tier (docs/desktops-and-tiers.md#moving-up-upgrade_tier): the agent
// asks to move its run to a bigger compute tier (T2: a desktop with Chromium).
// The tier state machine (server/tiers) decides; when the tier's settings want
// a person's consent, the gate asks for it first and the answer comes back in
// ctx.consent.
import { z } from "zod";
import { ToolError, type ToolContext, type ToolDefinition } from "../types";

const UpgradeTierArgs = z
  .object({
    tier: z.enum(["T1", "T2", "T3", "T4"], { error: "tier is one of T1, T2, T3, T4" }),
    reason: z.string().trim().min(1, "say why the run needs the tier").max(2000),
  })
  .strict();

type UpgradeTierArgs = z.infer<typeof UpgradeTierArgs>;

function request(args: UpgradeTierArgs, ctx: ToolContext) {
  return { runId: ctx.runId, toolCallId: ctx.toolCallId ?? "", tier: args.tier, reason: args.reason };
}

export const upgradeTier: ToolDefinition<UpgradeTierArgs> = {
  name: "upgrade_tier",
  description:
    "Move this run to a bigger compute tier when the task needs it: T1 terminal (files and a sandboxed shell), T2 desktop " +
    "(T1 plus Chromium on a desktop, for the browser_* tools). Say why. Entering a tier may need a person's consent; the run " +
    "waits for it. The workspace is kept. Refused with a reason code when the tier is off, unavailable, above the task's " +
    "complexity, over budget, or consent was not given.",
  args: UpgradeTierArgs,
  // Asking again for a tier the run was just moved to is the same request: the key is the tier.
  replayClass: "idempotent_with_key",
  idempotencyKey: (args) => `tier:${args.tier}`,
  persistence: "none",
  timeoutMs: 120_000,
  async consent(args, ctx) {
    return ctx.tiers ? ctx.tiers.consentNeeded(request(args, ctx)) : null;
  },
  async execute(args, ctx) {
    if (!ctx.tiers) throw new ToolError("TIER_UNAVAILABLE", "This Rein has no compute tiers configured; the run stays where it is");
    return ctx.tiers.upgrade({ ...request(args, ctx), consent: ctx.consent });
  },
};
