// REST v1 for memories (the Memory page's API): search and list, one memory,
// edit, pin and delete. The same service and role checks as the tRPC router.
import { z } from "zod";
import {
  ListMemoriesInput,
  MEMORY_KINDS,
  MEMORY_ORIGINS,
  MEMORY_SCOPES,
  MEMORY_STATES,
  MemoryStore,
  UpdateMemoryInput,
} from "@/server/memory";
import type { Db } from "@/server/db";
import { defineRoute, type Route } from "./contract";
import { Instant } from "./schemas";

const PatchBody = UpdateMemoryInput.extend({
  state: z.enum(["active", "rejected"]).optional().describe("Keep (active) or discard (rejected) a pending memory"),
}).strict();
/** An empty body pins; so does null. */
const PinBody = z
  .object({ pinned: z.boolean({ error: "pinned is true or false" }).optional().describe("false unpins; true when absent") })
  .strict()
  .nullable();

/** One of the values, or the problem in the same words as ever. */
const oneOf = <const T extends readonly [string, ...string[]]>(name: string, allowed: T) =>
  z.enum(allowed, { error: (issue) => `${name} is one of ${allowed.join(", ")}; got ${String(issue.input).slice(0, 40)}` }).optional();

const ListQuery = z.object({
  q: ListMemoriesInput.shape.q.describe("Words to search for (full text, best match first); punctuation and search syntax are ignored"),
  agent: ListMemoriesInput.shape.agent.describe("The agent's name"),
  kind: oneOf("kind", MEMORY_KINDS),
  state: oneOf("state", MEMORY_STATES),
  scope: oneOf("scope", MEMORY_SCOPES),
  teamId: ListMemoriesInput.shape.teamId,
  pinned: z.string().optional().describe("true: pinned ones only; false (or anything else): the others only"),
  limit: z.coerce.number().int().min(1).max(200).optional(),
  cursor: ListMemoriesInput.shape.cursor.describe("nextCursor of the previous page (without q)"),
});

const Memory = z
  .object({
    id: z.string(),
    scope: z.enum(MEMORY_SCOPES).describe("agent: only runs of the agent that saved it; team: every agent of its team"),
    agentName: z.string(),
    teamId: z.string().nullable(),
    ownerId: z.string().nullable().describe("A team-less run's memory: the person who launched it"),
    kind: z.enum(MEMORY_KINDS),
    title: z.string(),
    text: z.string(),
    state: z.enum(MEMORY_STATES).describe("pending: waits for a person's keep and does not count; rejected: discarded"),
    pinned: z.boolean().describe("Pinned memories load first into every run in its scope"),
    sourceRunId: z.string().nullable(),
    requestId: z.string().nullable().describe("The request in the Inbox that asks to keep it"),
    createdBy: z.string(),
    origin: z.enum(MEMORY_ORIGINS).describe("scenario: a run playing its launcher's script saved it, so a person wrote the text"),
    decidedById: z.string().nullable(),
    decidedAt: Instant.nullable(),
    uses: z.number().int().describe("How many runs loaded it"),
    lastUsedAt: Instant.nullable(),
    createdAt: Instant,
    updatedAt: Instant,
  })
  .meta({ id: "Memory" });

const storeOf = (db: Db) => new MemoryStore({ db });

export const MEMORY_ROUTES: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/memories",
    minRole: "viewer",
    summary: "Memories of your teams (admins: all): pinned first then newest, or best match first with q",
    description:
      "Agents save memories with remember; every run leaves an episode. A team-less run's memories are seen by the person who launched it (and admins).",
    query: ListQuery,
    response: z.object({ memories: z.array(Memory), nextCursor: z.string().nullable() }),
    async handle({ query, actor, db }) {
      const { pinned, ...rest } = query;
      const page = await storeOf(db).list(actor, { ...rest, ...(pinned !== undefined ? { pinned: pinned === "true" } : {}) });
      return { memories: page.items, nextCursor: page.nextCursor };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/memories/{id}",
    minRole: "viewer",
    summary: "One memory",
    response: Memory,
    handle: ({ params, actor, db }) => storeOf(db).getFor(actor, params.id),
  }),
  defineRoute({
    method: "PATCH",
    path: "/api/v1/memories/{id}",
    minRole: "operator",
    summary: "Edit a memory (title, text, kind, pinned), or keep (state=active) or discard (state=rejected) a pending one",
    description: "Needs the operator role in the memory's team. Text is at most 2,000 characters.",
    body: PatchBody,
    response: Memory,
    handle: ({ params, body, actor, db, channel }) => storeOf(db).update(actor, params.id, body, channel),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/memories/{id}/pin",
    minRole: "operator",
    summary: "Pin a memory (pinned=false unpins): pinned memories load first into every run in its scope",
    body: PinBody,
    response: Memory,
    handle: ({ params, body, actor, db, channel }) => storeOf(db).setPinned(actor, params.id, body?.pinned ?? true, channel),
  }),
  defineRoute({
    method: "DELETE",
    path: "/api/v1/memories/{id}",
    minRole: "operator",
    summary: "Delete a memory",
    response: z.object({ id: z.string(), deleted: z.literal(true) }),
    handle: ({ params, actor, db, channel }) => storeOf(db).remove(actor, params.id, channel),
  }),
];
