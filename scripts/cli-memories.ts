// CLI commands for memories over REST v1: `memories list [--agent A] [--kind K]
// [--state S]`, `memories search WORDS…`, `memories show ID`, `memories edit
// ID [--text T] [--title T]`, `memories pin|unpin ID`, `memories keep|discard
// ID` (a pending one) and `memories delete ID`.
import type { components } from "../lib/rest-api.generated";
import type { RestClient } from "../lib/rest-client";
import { CliError, ok } from "./cli-error";
import { given, type Query } from "./cli-input";
import type { CliCommand } from "./cli-commands";

export const MEMORY_OPTIONS = {
  /** memories edit: the new title. */
  title: { type: "string" },
  /** memories list / search: how many (1..200). */
  limit: { type: "string" },
} as const;

type MemoryValues = {
  json?: boolean;
  agent?: string;
  kind?: string;
  state?: string;
  team?: string;
  text?: string;
  title?: string;
  limit?: string;
};

type MemoryView = components["schemas"]["Memory"];

function need(args: string[], usage: string): string {
  if (!args[0]) throw new CliError(`usage: npm run rein -- memories ${usage}`);
  return args[0];
}

function print(m: MemoryView, full = false) {
  const flags = [m.kind, m.scope, m.state !== "active" ? m.state : "", m.pinned ? "pinned" : ""].filter(Boolean).join(", ");
  console.log(`${m.id}  ${m.title}  (${flags}; ${m.agentName}; used ${m.uses}×${m.sourceRunId ? `; run ${m.sourceRunId}` : ""})`);
  console.log(full ? m.text.replace(/^/gm, "  ") : `  ${m.text.replace(/\s+/g, " ").slice(0, 160)}`);
}

async function list(api: RestClient, values: MemoryValues, q?: string) {
  const { memories: items } = await ok(
    api.GET("/api/v1/memories", {
      params: {
        query: {
          ...(q ? { q } : {}),
          ...(values.agent ? { agent: values.agent } : {}),
          ...(values.kind ? { kind: given<Query<"/api/v1/memories", "get">["kind"]>(values.kind) } : {}),
          ...(values.state ? { state: given<Query<"/api/v1/memories", "get">["state"]>(values.state) } : {}),
          ...(values.team ? { teamId: values.team } : {}),
          ...(values.limit ? { limit: Number(values.limit) } : {}),
        },
      },
    }),
  );
  if (values.json) return console.log(JSON.stringify(items));
  if (!items.length)
    return console.log(q ? "No memory matches." : "No memories yet — agents save them with remember, and every run leaves an episode.");
  for (const m of items) print(m);
}

function change(
  sub: string,
  description: string,
  send: (api: RestClient, path: { id: string }, values: MemoryValues) => Promise<MemoryView>,
): CliCommand<MemoryValues> {
  return {
    command: "memories",
    sub,
    usage: sub === "edit" ? "ID [--text TEXT] [--title TITLE] [--json]" : "ID [--json]",
    description,
    async run({ api, args, values }) {
      const id = need(args, `${sub} ID`);
      const m = await send(api, { id }, values);
      if (values.json) return console.log(JSON.stringify(m));
      print(m, true);
    },
  };
}

export const MEMORY_COMMANDS: CliCommand<MemoryValues>[] = [
  {
    command: "memories",
    sub: "list",
    usage:
      "[--agent NAME] [--kind fact|procedure|preference|episode] [--state active|pending|rejected] [--team TEAM_ID] [--limit N] [--json]",
    description:
      "Memories of your teams, pinned first then newest: kind, scope, state, the agent that saved it and how often runs used it.",
    run: ({ api, values }) => list(api, values),
  },
  {
    command: "memories",
    sub: "search",
    usage: "WORDS… [--agent NAME] [--kind K] [--state S] [--limit N] [--json]",
    description: "Full-text search over your teams' memories, best match first (punctuation and search syntax are ignored).",
    async run({ api, args, values }) {
      if (!args.length) throw new CliError("usage: npm run rein -- memories search WORDS…");
      await list(api, values, args.join(" "));
    },
  },
  {
    command: "memories",
    sub: "show",
    usage: "ID [--json]",
    description: "One memory in full.",
    async run({ api, args, values }) {
      const m = await ok(api.GET("/api/v1/memories/{id}", { params: { path: { id: need(args, "show ID") } } }));
      if (values.json) return console.log(JSON.stringify(m));
      print(m, true);
    },
  },
  change("edit", "Change a memory's text or title (operator in its team).", (api, path, v) => {
    if (!v.text && !v.title) throw new CliError("memories edit needs --text or --title");
    const body = { ...(v.text ? { text: v.text } : {}), ...(v.title ? { title: v.title } : {}) };
    return ok(api.PATCH("/api/v1/memories/{id}", { params: { path }, body }));
  }),
  change("pin", "Pin a memory: it loads first into every run in its scope.", (api, path) =>
    ok(api.POST("/api/v1/memories/{id}/pin", { params: { path }, body: { pinned: true } })),
  ),
  change("unpin", "Unpin a memory.", (api, path) =>
    ok(api.POST("/api/v1/memories/{id}/pin", { params: { path }, body: { pinned: false } })),
  ),
  change("keep", "Keep a memory that waits for confirmation: it counts from now on.", (api, path) =>
    ok(api.PATCH("/api/v1/memories/{id}", { params: { path }, body: { state: "active" } })),
  ),
  change("discard", "Discard a memory: it never loads or comes back from recall.", (api, path) =>
    ok(api.PATCH("/api/v1/memories/{id}", { params: { path }, body: { state: "rejected" } })),
  ),
  {
    command: "memories",
    sub: "delete",
    usage: "ID",
    description: "Delete a memory for good (operator in its team).",
    async run({ api, args }) {
      const id = need(args, "delete ID");
      await ok(api.DELETE("/api/v1/memories/{id}", { params: { path: { id } } }));
      console.log(`Deleted memory ${id}.`);
    },
  },
];
