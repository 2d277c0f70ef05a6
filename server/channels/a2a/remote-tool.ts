// call_remote_agent (docs/a2a.md#remote-agents): an agent hands a subtask to a
// remote A2A agent an admin added, as a tool like any other, so the policy
// gate, the run's call cap and its trace cover it. The call sends one message
// with the A2A SDK's client and waits for the task to end or to need input;
// the model gets the task's state, what the remote said and its artifacts'
// text, cut to size. The bearer token is read on the host from its sealed
// secret at each call and reaches neither the model nor the sandbox.
import { SendMessageRequest, TaskState, type Message, type Part, type Task } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { z } from "zod";
import crypto from "node:crypto";
import type { Db } from "@/server/db";
import { checkToolSecretNames, getSecretValue, type SecretKeyring } from "@/server/secrets";
import { ToolError, type ToolContext, type ToolDefinition } from "@/server/tools";
import { listRemoteAgents, type RemoteAgent } from "./remote-agents";
import { guardedFetch, RemoteRefusal, type GuardOptions } from "./remote-fetch";

export const REMOTE_AGENT_TOOL = "call_remote_agent";
/** How long one call waits for the remote task (the remote may answer sooner with the task as it is). */
export const REMOTE_CALL_MS = 5 * 60_000;
/** What the model gets back at most. */
export const REMOTE_TEXT_CHARS = 32 * 1024;

const Args = z
  .object({
    agent: z.string().trim().min(1).max(63).describe("The remote agent's name, as an admin added it"),
    message: z.string().trim().min(1).max(20_000).describe("What the remote agent should do, in plain words"),
    taskId: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .describe("To reply to a remote task that asked for input: its taskId from the earlier call"),
  })
  .strict();
type Args = z.infer<typeof Args>;

const STATE_WORDS: Partial<Record<TaskState, string>> = {
  [TaskState.TASK_STATE_SUBMITTED]: "submitted",
  [TaskState.TASK_STATE_WORKING]: "working",
  [TaskState.TASK_STATE_COMPLETED]: "completed",
  [TaskState.TASK_STATE_FAILED]: "failed",
  [TaskState.TASK_STATE_CANCELED]: "canceled",
  [TaskState.TASK_STATE_INPUT_REQUIRED]: "input_required",
  [TaskState.TASK_STATE_REJECTED]: "rejected",
  [TaskState.TASK_STATE_AUTH_REQUIRED]: "auth_required",
};

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

function partText(p: Part): string {
  if (p.content?.$case === "text") return p.filename ? `--- ${p.filename}\n${p.content.value}` : p.content.value;
  if (p.content?.$case === "data") return JSON.stringify(p.content.value);
  if (p.content?.$case === "url") return `(a file at ${p.content.value})`;
  return "";
}

const textOf = (m: { parts: Part[] } | undefined) => (m?.parts ?? []).map(partText).filter(Boolean).join("\n");

/** The remote's answer as the model reads it. */
export function answerOf(remote: string, result: Task | Message) {
  if ("messageId" in result) return { agent: remote, state: "message", text: cut(textOf(result), REMOTE_TEXT_CHARS), artifacts: [] };
  let budget = REMOTE_TEXT_CHARS;
  const take = (text: string) => {
    const piece = cut(text, Math.max(0, budget));
    budget -= piece.length;
    return piece;
  };
  const state = STATE_WORDS[result.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED] ?? "unknown";
  return {
    agent: remote,
    taskId: result.id,
    state,
    text: take(textOf(result.status?.message)),
    artifacts: result.artifacts.map((a) => ({ name: a.name, text: take(textOf(a)) })),
    ...(state === "input_required"
      ? { next: `The remote agent asks for input: call ${REMOTE_AGENT_TOOL} again with taskId ${result.id}.` }
      : {}),
  };
}

export interface RemoteToolDeps {
  db: Db;
  keyring: SecretKeyring;
  /** Name resolution for the SSRF guard (tests give a fake one). */
  lookup?: GuardOptions["lookup"];
}

async function tokenFor(deps: RemoteToolDeps, remote: RemoteAgent, ctx: ToolContext): Promise<string | null> {
  if (!remote.tokenSecret) return null;
  // The secret's scope (agents, teams) applies as to any secret a run uses; its value never leaves the host.
  await checkToolSecretNames(deps.db, [remote.tokenSecret], {
    agent: ctx.agent.name,
    teamId: ctx.teamId ?? null,
    callerCommands: false,
  }).catch((err: Error) => {
    throw new ToolError("FORBIDDEN", err.message);
  });
  return getSecretValue(deps.db, deps.keyring, remote.tokenSecret);
}

async function call(deps: RemoteToolDeps, args: Args, ctx: ToolContext) {
  const remotes = await listRemoteAgents(deps.db);
  const remote = remotes.find((r) => r.name === args.agent);
  if (!remote)
    throw new ToolError(
      "UNKNOWN_AGENT",
      `No remote agent is named ${args.agent}; ${remotes.length ? `the remote agents are: ${remotes.map((r) => r.name).join(", ")}` : "an admin has added none"}`,
    );
  const token = await tokenFor(deps, remote, ctx);
  const base = new URL(remote.url.endsWith("/") ? remote.url : `${remote.url}/`);
  const guarded = guardedFetch({ allowHosts: remote.privateNetwork ? [base.host] : [], timeoutMs: REMOTE_CALL_MS, lookup: deps.lookup });
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    // Only to the address the admin gave: a card naming another host does not get the token.
    const sameOrigin = new URL(input instanceof Request ? input.url : String(input)).origin === base.origin;
    if (token && sameOrigin) headers.set("authorization", `Bearer ${token}`);
    return guarded(input, { ...init, headers, signal: init?.signal ?? ctx.signal });
  };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  );
  const client = await factory.createFromUrl(base.href);
  const result = await client.sendMessage(
    SendMessageRequest.fromJSON({
      message: {
        // The same call replayed sends the same id: a remote that dedupes on it runs the task once.
        messageId: ctx.toolCallId ? `rein-${ctx.runId}-${ctx.toolCallId}` : crypto.randomUUID(),
        role: "ROLE_USER",
        parts: [{ text: args.message }],
        ...(args.taskId ? { taskId: args.taskId } : {}),
      },
    }),
    { signal: ctx.signal },
  );
  return answerOf(remote.name, result);
}

export function remoteAgentTool(deps: RemoteToolDeps): ToolDefinition<Args> {
  return {
    name: REMOTE_AGENT_TOOL,
    description:
      "Hands a subtask to a remote agent over A2A and waits for its answer (at most 5 minutes): its state, what it said and the text of what it produced. " +
      "If it asks for input, call again with its taskId and your reply.",
    args: Args,
    // A remote task is started: running the call again would start another.
    replayClass: "unsafe_on_replay",
    persistence: "external",
    timeoutMs: REMOTE_CALL_MS + 10_000,
    async execute(args, ctx) {
      try {
        return await call(deps, args, ctx);
      } catch (err) {
        if (err instanceof ToolError) throw err;
        if (err instanceof RemoteRefusal) throw new ToolError("REFUSED", err.message);
        throw new ToolError("REMOTE_FAILED", `The remote agent ${args.agent} could not be reached or refused: ${(err as Error).message}`);
      }
    },
  };
}
