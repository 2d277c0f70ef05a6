// A Slack Web API written from Slack's documentation, not from Rein's code:
// POST https://slack.com/api/<method> with "Authorization: Bearer <token>" and
// a form-encoded or JSON body; every answer is 200 with {"ok":true,...} or
// {"ok":false,"error":"<code>"}. It serves the methods Rein uses, records
// every call, and can be told to fail one. signSlackRequest signs an
// interactivity request as Slack does ("Verifying requests from Slack").
import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface SlackCall {
  method: string;
  /** The arguments, with blocks parsed from their JSON. */
  args: Record<string, any>;
  authorized: boolean;
}

export interface FakeMember {
  id: string;
  name: string;
  email?: string;
  deleted?: boolean;
  is_bot?: boolean;
}

export interface FakeSlack {
  /** The base URL to give the Web API client (ends with a slash). */
  url: string;
  token: string;
  calls: SlackCall[];
  members: FakeMember[];
  /** Calls of one method that Slack accepted. */
  callsOf(method: string): SlackCall[];
  /** The next call of `method` answers {ok:false, error}. */
  failNext(method: string, error: string): void;
  close(): Promise<void>;
}

export const FAKE_TEAM = "Acme Workspace";

export async function startFakeSlack(opts: { token?: string; members?: FakeMember[]; port?: number } = {}): Promise<FakeSlack> {
  const token = opts.token ?? `xoxb-fake-${crypto.randomBytes(6).toString("hex")}`;
  const calls: SlackCall[] = [];
  const members = opts.members ?? [];
  const failures = new Map<string, string>();
  let seq = 0;

  const nextTs = () => `${Math.floor(Date.now() / 1000)}.${String(++seq).padStart(6, "0")}`;
  const answer = (method: string, args: Record<string, any>): Record<string, unknown> => {
    const fail = failures.get(method);
    if (fail) {
      failures.delete(method);
      return { ok: false, error: fail };
    }
    const profile = (m: FakeMember) => ({
      id: m.id,
      name: m.name,
      real_name: m.name,
      deleted: !!m.deleted,
      is_bot: !!m.is_bot,
      profile: { real_name: m.name, ...(m.email ? { email: m.email } : {}) },
    });
    switch (method) {
      case "auth.test":
        return {
          ok: true,
          url: "https://acme.slack.com/",
          team: FAKE_TEAM,
          user: "rein",
          team_id: "T0FAKE",
          user_id: "U0BOT",
          bot_id: "B0BOT",
        };
      case "chat.postMessage":
        if (!args.channel) return { ok: false, error: "channel_not_found" };
        return { ok: true, channel: args.channel, ts: nextTs(), message: { text: args.text } };
      case "chat.update":
        if (!args.channel || !args.ts) return { ok: false, error: "message_not_found" };
        return { ok: true, channel: args.channel, ts: args.ts, text: args.text };
      case "chat.postEphemeral":
        if (!args.channel || !args.user) return { ok: false, error: "user_not_in_channel" };
        return { ok: true, message_ts: nextTs() };
      case "conversations.open": {
        const user = String(args.users ?? "");
        if (!members.some((m) => m.id === user)) return { ok: false, error: "user_not_found" };
        return { ok: true, channel: { id: `D${user.slice(1)}` } };
      }
      case "users.info": {
        const m = members.find((x) => x.id === args.user);
        return m ? { ok: true, user: profile(m) } : { ok: false, error: "user_not_found" };
      }
      case "users.list":
        return { ok: true, members: members.map(profile), response_metadata: { next_cursor: "" } };
      default:
        return { ok: false, error: "unknown_method" };
    }
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const method = (req.url ?? "")
        .replace(/^\/api\//, "")
        .replace(/^\//, "")
        .split("?")[0];
      const body = Buffer.concat(chunks).toString("utf8");
      let args: Record<string, any> = {};
      if ((req.headers["content-type"] ?? "").includes("json")) args = body ? JSON.parse(body) : {};
      else for (const [k, v] of new URLSearchParams(body)) args[k] = v;
      for (const k of ["blocks", "attachments"]) if (typeof args[k] === "string") args[k] = JSON.parse(args[k]);
      const authorized = req.headers.authorization === `Bearer ${token}`;
      calls.push({ method, args, authorized });
      const reply = authorized ? answer(method, args) : { ok: false, error: req.headers.authorization ? "invalid_auth" : "not_authed" };
      res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
      res.end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", resolve);
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`,
    token,
    calls,
    members,
    callsOf: (method) => calls.filter((c) => c.method === method && c.authorized),
    failNext: (method, error) => void failures.set(method, error),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The headers Slack sends with an interactivity request: v0 signature over "v0:<ts>:<body>". */
export function signSlackRequest(secret: string, body: string, ts = Math.floor(Date.now() / 1000)): Record<string, string> {
  const signature = `v0=${crypto.createHmac("sha256", secret).update(`v0:${ts}:${body}`).digest("hex")}`;
  return { "x-slack-request-timestamp": String(ts), "x-slack-signature": signature, "content-type": "application/x-www-form-urlencoded" };
}

/** The body Slack posts when someone clicks a button: payload=<JSON>, form-encoded. */
export function blockActionsBody(opts: { userId: string; channelId: string; actionId: string; value: string; messageTs?: string }): string {
  const payload = {
    type: "block_actions",
    team: { id: "T0FAKE", domain: "acme" },
    user: { id: opts.userId, username: "someone", team_id: "T0FAKE" },
    api_app_id: "A0FAKE",
    container: { type: "message", message_ts: opts.messageTs ?? "1.000001", channel_id: opts.channelId, is_ephemeral: false },
    channel: { id: opts.channelId, name: "approvals" },
    trigger_id: "1.2.3",
    response_url: "https://hooks.slack.com/actions/T0FAKE/1/xyz",
    actions: [{ type: "button", action_id: opts.actionId, block_id: "b", value: opts.value, action_ts: "1.1" }],
  };
  return `payload=${encodeURIComponent(JSON.stringify(payload))}`;
}
