// REST v1 for A2A (docs/a2a.md), for admins: which agents Rein serves over
// A2A, under which id, and which one is the well-known card; and the remote
// agents Rein's agents may hand subtasks to.
import { z } from "zod";
import {
  RemoteAgentInput,
  agentCardUrl,
  exposeAgent,
  listExposed,
  listRemoteAgents,
  removeRemoteAgent,
  saveRemoteAgent,
  unexposeAgent,
  type ExposedAgent,
} from "../a2a";
import { defineRoute, type Route } from "./contract";

const AgentParams = z.object({ name: z.string().describe("The agent's name") });

const ExposeBody = z
  .object({
    wellKnown: z
      .boolean({ error: "wellKnown is true or false" })
      .optional()
      .describe("true: this agent's card is also Rein's /.well-known/agent-card.json (only one agent's is); false when absent"),
  })
  .strict()
  .nullable();

const ExposedView = z
  .object({
    id: z.string().describe("The agent's id in A2A addresses; names never appear in them"),
    agent: z.string(),
    wellKnown: z.boolean(),
    cardUrl: z.string().describe("Where its signed card is; point an A2A client at the folder that holds .well-known/"),
  })
  .meta({ id: "A2aExposedAgent" });

const RemoteParams = z.object({ name: z.string().describe("The remote agent's name") });

const RemoteView = RemoteAgentInput.extend({ name: z.string() }).meta({ id: "A2aRemoteAgent" });

const view = (base: string, e: ExposedAgent) => ({ ...e, cardUrl: agentCardUrl(base, e.id) });

export const A2A_ROUTES: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/a2a/agents",
    minRole: "admin",
    summary: "The agents served over A2A, with their ids and card addresses",
    response: z.object({ agents: z.array(ExposedView) }),
    handle: async ({ db, linkBase }) => ({ agents: (await listExposed(db)).map((e) => view(linkBase, e)) }),
  }),
  defineRoute({
    method: "PUT",
    path: "/api/v1/a2a/agents/{name}",
    minRole: "admin",
    summary: "Serve an agent over A2A (again: keeps its id), optionally as the well-known card",
    description: "Its signed card is public from then on; its tasks need an API token whose person may run the agent.",
    params: AgentParams,
    body: ExposeBody,
    response: ExposedView,
    handle: async ({ db, actor, params, body, linkBase }) =>
      view(linkBase, await exposeAgent(db, actor, { agent: params.name, wellKnown: body?.wellKnown ?? false })),
  }),
  defineRoute({
    method: "DELETE",
    path: "/api/v1/a2a/agents/{name}",
    minRole: "admin",
    summary: "Stop serving an agent over A2A: its card and its tasks' address answer not found",
    description: "Its runs stay in Rein as they are.",
    params: AgentParams,
    response: z.object({ removed: z.boolean().describe("false: it was not served") }),
    handle: async ({ db, actor, params }) => ({ removed: await unexposeAgent(db, actor, params.name) }),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/a2a/remotes",
    minRole: "admin",
    summary: "The remote A2A agents Rein's agents may hand subtasks to (call_remote_agent)",
    response: z.object({ remotes: z.array(RemoteView) }),
    handle: async ({ db }) => ({ remotes: await listRemoteAgents(db) }),
  }),
  defineRoute({
    method: "PUT",
    path: "/api/v1/a2a/remotes/{name}",
    minRole: "admin",
    summary: "Add or replace a remote A2A agent: its address, the secret holding its token, and whether it is on a private network",
    description: "An agent calls it with the call_remote_agent tool, which its spec must list; the token never reaches the agent.",
    params: RemoteParams,
    body: RemoteAgentInput,
    response: RemoteView,
    handle: ({ db, actor, params, body }) => saveRemoteAgent(db, actor, params.name, body),
  }),
  defineRoute({
    method: "DELETE",
    path: "/api/v1/a2a/remotes/{name}",
    minRole: "admin",
    summary: "Remove a remote A2A agent: calls to it fail from then on",
    params: RemoteParams,
    response: z.object({ removed: z.boolean().describe("false: there was none by that name") }),
    handle: async ({ db, actor, params }) => ({ removed: await removeRemoteAgent(db, actor, params.name) }),
  }),
];
