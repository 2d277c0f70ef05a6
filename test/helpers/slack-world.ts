// A Rein wired to a fake Slack as the server wires it: the Slack channel as a
// listener of the channel dispatcher, the actions handler behind a real HTTP
// server, the bot token and signing secret in the secret store, Slack turned
// on with a channel for the test team. Requests are opened the way the kernel
// opens them: a request row and its human.requested event (whose outbox
// message the dispatcher hands to Slack).
import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import {
  ChannelDispatcher,
  SlackChannel,
  Webhooks,
  createSlackActionsHandler,
  saveSlackSettings,
  type SlackActionsHandler,
} from "@/server/channels";
import { DEFAULT_LADDER, createRequest, type RequestKind, type RequestPayload } from "@/server/hitl";
import { event } from "@/server/kernel";
import { putSecret } from "@/server/secrets";
import type { Role } from "@/server/identity";
import { createTestKernel, type TestKernel } from "./kernel";
import { blockActionsBody, signSlackRequest, startFakeSlack, type FakeSlack } from "./fake-slack";

export const TEAM_CHANNEL = "C0TEAMCHAN";
export const PUBLIC_URL = "https://rein.example";

export interface SlackWorld {
  tk: TestKernel;
  slack: FakeSlack;
  signingSecret: string;
  channel: SlackChannel;
  dispatcher: ChannelDispatcher;
  handler: SlackActionsHandler;
  /** The actions endpoint's URL. */
  actionsUrl: string;
  teamId: string;
  runId: string;
  /** The Slack member id of each test user (all but viewer2 share the test users' e-mails). */
  slackIds: Record<Role, string>;
  errors: string[];
  openRequest(kind: RequestKind, payload?: RequestPayload): Promise<string>;
  /** POSTs a body to the actions endpoint with the given headers; waits for the click to be taken. */
  post(body: string, headers: Record<string, string>): Promise<{ status: number; body: string }>;
  /** A click signed as Slack signs it. */
  click(slackUserId: string, actionId: string, value: string, ts?: number): Promise<{ status: number; body: string }>;
  close(): Promise<void>;
}

export async function createSlackWorld(): Promise<SlackWorld> {
  const tk = await createTestKernel({ hitl: true, secrets: true });
  const db = tk.t.db;
  const keyring = tk.keyring!;
  const slackIds: Record<Role, string> = { viewer: "U0VIEWER", operator: "U0OPERATOR", approver: "U0APPROVER", admin: "U0ADMIN" };
  const slack = await startFakeSlack({
    members: [
      ...(Object.keys(slackIds) as Role[]).map((role) => ({
        id: slackIds[role],
        name: tk.actors[role].name,
        email: tk.actors[role].email.toUpperCase(),
      })),
      { id: "U0STRANGER", name: "Stranger", email: "stranger@elsewhere.example" },
    ],
  });
  const signingSecret = crypto.randomBytes(16).toString("hex");
  await putSecret(db, keyring, { name: "SLACK_BOT_TOKEN", value: slack.token, actor: tk.users.admin });
  await putSecret(db, keyring, { name: "SLACK_SIGNING_SECRET", value: signingSecret, actor: tk.users.admin });
  const teamId = tk.actors.approver.teamIds[0];
  await saveSlackSettings(db, tk.actors.admin, { enabled: true, defaultChannels: { [teamId]: TEAM_CHANNEL } });
  const errors: string[] = [];
  const log = { error: (msg: string) => void errors.push(msg) };
  const deps = { db, keyring, apiUrl: slack.url, log };
  const channel = new SlackChannel({ ...deps, broker: tk.hitl!.broker, links: tk.hitl!.links, publicUrl: PUBLIC_URL });
  const dispatcher = new ChannelDispatcher({ db, webhooks: new Webhooks({ db, keyring }), listeners: [channel.onMessage], log });
  const handler = createSlackActionsHandler({ ...deps, broker: tk.hitl!.broker, now: tk.hitl!.clock.now });
  const server = http.createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const actionsUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/channels/slack/actions`;

  const runId = `run-slack-${crypto.randomUUID()}`;
  await db.run.create({
    data: {
      id: runId,
      goal: "Tidy the release notes",
      agentName: "demo-coder",
      agentVersion: 1,
      model: "scripted/demo-coder",
      createdById: tk.users.operator,
      teamId,
      status: "running",
    },
  });
  let node = 0;

  const post = async (body: string, headers: Record<string, string>) => {
    const res = await fetch(actionsUrl, { method: "POST", headers, body });
    const text = await res.text();
    await handler.settled();
    return { status: res.status, body: text };
  };

  return {
    tk,
    slack,
    signingSecret,
    channel,
    dispatcher,
    handler,
    actionsUrl,
    teamId,
    runId,
    slackIds,
    errors,
    async openRequest(kind, payload = {}) {
      const { row } = await createRequest(
        db,
        {
          runId,
          nodeId: `node-${++node}`,
          checkpointId: `checkpoint-${node}`,
          slot: "ask_human",
          kind,
          title: `Publish the notes? (${kind})`,
          detail: "They go to every customer.",
          payload,
          requiredRole: "approver",
          teamId,
          requestedById: tk.users.operator,
        },
        DEFAULT_LADDER,
        tk.hitl!.clock.now(),
      );
      await tk.kernel.store.appendEvents(runId, [
        event("human.requested", {
          requestId: row.id,
          kind,
          title: row.title,
          requiredRole: "approver",
          expiresAt: row.expiresAt.toISOString(),
          tool: "ask_human",
          toolCallId: `call-${node}`,
        }),
      ]);
      return row.id;
    },
    post,
    click(slackUserId, actionId, value, ts = Math.floor(tk.hitl!.clock.now().getTime() / 1000)) {
      const body = blockActionsBody({ userId: slackUserId, channelId: TEAM_CHANNEL, actionId, value });
      return post(body, signSlackRequest(signingSecret, body, ts));
    },
    async close() {
      await dispatcher.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await slack.close();
      await tk.cleanup();
    },
  };
}
