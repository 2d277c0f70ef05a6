// Settings › Channels › Slack › Test: does the bot token work, and as whom.
import type { Actor } from "@/server/identity";
import { requireChannelAdmin } from "../errors";
import { describeSlackError, slackClient, type SlackDeps } from "./client";
import { readSlackSettings } from "./settings";

export type SlackConnectionResult = { ok: true; message: string; team: string | null; bot: string | null } | { ok: false; message: string };

/** Calls auth.test with the stored bot token; says in words what went wrong. */
export async function testSlackConnection(deps: SlackDeps, actor: Actor): Promise<SlackConnectionResult> {
  requireChannelAdmin(actor, "Testing the Slack connection");
  try {
    const client = await slackClient(deps, await readSlackSettings(deps.db));
    const auth = await client.auth.test();
    const team = auth.team ?? null;
    const bot = auth.user ?? null;
    return { ok: true, message: `Connected to the Slack workspace ${team ?? "(unnamed)"} as ${bot ?? "the app's bot"}`, team, bot };
  } catch (err) {
    return { ok: false, message: describeSlackError(err) };
  }
}
