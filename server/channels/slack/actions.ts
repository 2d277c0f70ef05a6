// POST /api/channels/slack/actions: a click on a request's button in Slack.
// The signature is the only thing that makes a payload Slack's; everything
// in it (the user, the request, the option) is checked again here and by the
// broker, which decides exactly as the Inbox would. A refusal goes back to
// the person who clicked as a message only they see.
import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import type { WebClient } from "@slack/web-api";
import { HumanRequestError, type HitlBroker } from "@/server/hitl";
import { loadActor } from "@/server/identity";
import { ChannelError } from "../errors";
import { parseAction } from "./blocks";
import { describeSlackError, readSlackSecret, slackClient, type SlackDeps } from "./client";
import { readSlackSettings, type SlackSettings } from "./settings";
import { replayKey, verifySlackSignature } from "./signature";
import { reinUserOf } from "./users";

export const SLACK_ACTIONS_PATH = "/api/channels/slack/actions";
export const MAX_SLACK_BODY = 64 * 1024;
/** Seen signatures are kept this long: past five minutes a replay is stale anyway. */
const SEEN_RETENTION_MS = 86_400_000;
const PRUNE_EVERY_MS = 3600_000;

export interface SlackActionsDeps extends SlackDeps {
  broker: Pick<HitlBroker, "decide">;
  log?: { error(msg: string, err?: unknown): void };
  now?: () => Date;
}

export interface SlackActionsHandler {
  (req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Resolves once every click taken so far has been decided or refused (tests). */
  settled(): Promise<void>;
}

const Payload = z.object({
  type: z.literal("block_actions"),
  user: z.object({ id: z.string().min(1).max(64) }),
  channel: z.object({ id: z.string().min(1).max(64) }).optional(),
  container: z.object({ channel_id: z.string().min(1).max(64).optional() }).optional(),
  actions: z
    .array(z.object({ action_id: z.string().max(255), value: z.string().max(2000).optional() }))
    .min(1)
    .max(10),
});
type Click = z.infer<typeof Payload>;

class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function send(res: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers });
  res.end(body === undefined ? "" : JSON.stringify(body));
}

async function readRaw(req: IncomingMessage): Promise<string> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > MAX_SLACK_BODY) throw new Refusal(413, "PAYLOAD_TOO_LARGE", `The body is larger than ${MAX_SLACK_BODY} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_SLACK_BODY) throw new Refusal(413, "PAYLOAD_TOO_LARGE", `The body is larger than ${MAX_SLACK_BODY} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

const sentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);

const header = (req: IncomingMessage, name: string) => {
  const v = req.headers[name];
  return typeof v === "string" ? v : undefined;
};

export function createSlackActionsHandler(deps: SlackActionsDeps): SlackActionsHandler {
  const now = () => deps.now?.() ?? new Date();
  const inFlight = new Set<Promise<void>>();
  let lastPrune = 0;

  /** Everything before the 200: size, signature, freshness, replay. Nothing is changed by a refused request. */
  async function admit(req: IncomingMessage): Promise<{ rawBody: string; settings: SlackSettings }> {
    if (req.method !== "POST") throw new Refusal(405, "METHOD_NOT_ALLOWED", "Slack's actions come by POST");
    const rawBody = await readRaw(req);
    const settings = await readSlackSettings(deps.db);
    if (!settings.enabled) throw new Refusal(503, "SLACK_OFF", "Slack is not turned on in this Rein (Settings › Channels › Slack)");
    let secret: string;
    try {
      secret = await readSlackSecret(deps, settings.signingSecretSecret, "Slack signing secret");
    } catch (err) {
      if (err instanceof ChannelError) throw new Refusal(503, "SLACK_NOT_CONFIGURED", err.message);
      throw err;
    }
    const signature = header(req, "x-slack-signature");
    const verdict = verifySlackSignature(
      secret,
      { timestamp: header(req, "x-slack-request-timestamp"), signature },
      rawBody,
      Math.floor(now().getTime() / 1000),
    );
    if (!verdict.ok) throw new Refusal(401, verdict.code, verdict.message);
    await pruneSeen();
    try {
      await deps.db.slackSeenAction.create({ data: { key: replayKey(signature!), createdAt: now() }, select: { key: true } });
    } catch (err) {
      if ((err as { code?: string }).code === "P2002") throw new Refusal(401, "REPLAYED", "This signed request was already taken once");
      throw err;
    }
    return { rawBody, settings };
  }

  async function pruneSeen() {
    if (now().getTime() - lastPrune < PRUNE_EVERY_MS) return;
    lastPrune = now().getTime();
    await deps.db.slackSeenAction.deleteMany({ where: { createdAt: { lt: new Date(now().getTime() - SEEN_RETENTION_MS) } } });
  }

  /** The click itself, after Slack has its 200. */
  async function take(click: Click, settings: SlackSettings): Promise<void> {
    const action = parseAction(click.actions[0]);
    if (!action) return; // a link button: Slack tells Rein of those clicks too
    const channelId = click.channel?.id ?? click.container?.channel_id;
    let client: WebClient;
    try {
      client = await slackClient(deps, settings);
    } catch (err) {
      deps.log?.error(`Slack: a click on request ${action.requestId} cannot be answered: ${describeSlackError(err)}`);
      return;
    }
    const refuse = async (text: string) => {
      if (!channelId) return;
      await client.chat
        .postEphemeral({ channel: channelId, user: click.user.id, text })
        .catch((err) => deps.log?.error(`Slack: the refusal could not be shown: ${describeSlackError(err)}`));
    };
    let userId: string | null;
    try {
      userId = await reinUserOf(deps.db, client, click.user.id);
    } catch (err) {
      deps.log?.error(`Slack: who clicked could not be looked up: ${describeSlackError(err)}`);
      return refuse("Rein could not check who you are in Slack just now; decide in Rein's Inbox instead.");
    }
    if (!userId)
      return refuse(
        "Rein does not know your Slack account: ask an admin to link it to your Rein account (Settings › Channels › Slack), or decide in Rein's Inbox.",
      );
    const actor = await loadActor(deps.db, userId);
    if (!actor) return refuse("Your Rein account is disabled, so Rein takes no decision from you.");
    const decider = { id: actor.userId, name: actor.name, role: actor.role, teamIds: actor.teamIds, teamRoles: actor.teamRoles };
    try {
      await deps.broker.decide(
        action.requestId,
        decider,
        { decision: action.decision, ...(action.optionId ? { optionId: action.optionId } : {}) },
        "slack",
      );
    } catch (err) {
      if (err instanceof HumanRequestError) return refuse(err.code === "NOT_FOUND" ? "Rein has no such request." : sentence(err.message));
      deps.log?.error(`Slack: the decision on request ${action.requestId} failed`, err);
      return refuse("Rein could not take your decision; try again in Rein's Inbox.");
    }
  }

  const handler = (async (req, res) => {
    let admitted: { rawBody: string; settings: SlackSettings };
    try {
      admitted = await admit(req);
    } catch (err) {
      if (err instanceof Refusal)
        return send(
          res,
          err.status,
          { error: { code: err.code, message: err.message } },
          err.status === 413 ? { connection: "close" } : {},
        );
      deps.log?.error("Slack: an action could not be checked", err);
      return send(res, 500, { error: { code: "INTERNAL_ERROR", message: "Rein hit an internal error; the server log has details" } });
    }
    let click: Click | null = null;
    try {
      const payload = new URLSearchParams(admitted.rawBody).get("payload");
      const parsed = Payload.safeParse(payload ? JSON.parse(payload) : null);
      click = parsed.success ? parsed.data : null;
    } catch {
      click = null;
    }
    // Slack wants its answer within three seconds; the decision follows.
    send(res, 200);
    if (!click) return;
    const work = take(click, admitted.settings).catch((err) => deps.log?.error("Slack: a click could not be taken", err));
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
  }) as SlackActionsHandler;

  handler.settled = async () => {
    while (inFlight.size) await Promise.all([...inFlight]);
  };
  return handler;
}
