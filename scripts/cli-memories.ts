// CLI commands for memories over REST v1: `memories list [--agent A] [--kind K]
// [--state S]`, `memories search WORDS…`, `memories show ID`, `memories edit
// ID [--text T] [--title T]`, `memories pin|unpin ID`, `memories keep|discard
// ID` (a pending one) and `memories delete ID`.
import { CliError } from "./cli-error";
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

interface MemoryView {
  id: string;
  scope: string;
  agentName: string;
  kind: string;
  title: string;
  text: string;
  state: string;
  pinned: boolean;
  sourceRunId: string | null;
  uses: number;
  updatedAt: string;
}

const seg = encodeURIComponent;

function need(args: string[], usage: string): string {
  if (!args[0]) throw new CliError(`usage: npm run rein -- memories ${usage}`);
  return args[0];
}

function query(params: Record<string, string | undefined>): string {
  const q = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => !!e[1]));
  const s = q.toString();
  return s ? `?${s}` : "";
}

function print(m: MemoryView, full = false) {
  const flags = [m.kind, m.scope, m.state !== "active" ? m.state : "", m.pinned ? "pinned" : ""].filter(Boolean).join(", ");
  console.log(`${m.id}  ${m.title}  (${flags}; ${m.agentName}; used ${m.uses}×${m.sourceRunId ? `; run ${m.sourceRunId}` : ""})`);
  console.log(full ? m.text.replace(/^/gm, "  ") : `  ${m.text.replace(/\s+/g, " ").slice(0, 160)}`);
}

async function list(api: (method: string, path: string, body?: unknown) => Promise<unknown>, values: MemoryValues, q?: string) {
  const { items } = (await api(
    "GET",
    `/api/v1/memories${query({ q, agent: values.agent, kind: values.kind, state: values.state, teamId: values.team, limit: values.limit })}`,
  )) as { items: MemoryView[] };
  if (values.json) return console.log(JSON.stringify(items));
  if (!items.length)
    return console.log(q ? "No memory matches." : "No memories yet — agents save them with remember, and every run leaves an episode.");
  for (const m of items) print(m);
}

function change(
  sub: string,
  description: string,
  body: (values: MemoryValues) => Record<string, unknown>,
  verb: "PATCH" | "POST" = "PATCH",
  suffix = "",
): CliCommand<MemoryValues> {
  return {
    command: "memories",
    sub,
    usage: sub === "edit" ? "ID [--text TEXT] [--title TITLE] [--json]" : "ID [--json]",
    description,
    async run({ api, args, values }) {
      const id = need(args, `${sub} ID`);
      const m = (await api(verb, `/api/v1/memories/${seg(id)}${suffix}`, body(values))) as MemoryView;
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
      const m = (await api("GET", `/api/v1/memories/${seg(need(args, "show ID"))}`)) as MemoryView;
      if (values.json) return console.log(JSON.stringify(m));
      print(m, true);
    },
  },
  change("edit", "Change a memory's text or title (operator in its team).", (v) => {
    if (!v.text && !v.title) throw new CliError("memories edit needs --text or --title");
    return { ...(v.text ? { text: v.text } : {}), ...(v.title ? { title: v.title } : {}) };
  }),
  change("pin", "Pin a memory: it loads first into every run in its scope.", () => ({ pinned: true }), "POST", "/pin"),
  change("unpin", "Unpin a memory.", () => ({ pinned: false }), "POST", "/pin"),
  change("keep", "Keep a memory that waits for confirmation: it counts from now on.", () => ({ state: "active" })),
  change("discard", "Discard a memory: it never loads or comes back from recall.", () => ({ state: "rejected" })),
  {
    command: "memories",
    sub: "delete",
    usage: "ID",
    description: "Delete a memory for good (operator in its team).",
    async run({ api, args }) {
      const id = need(args, "delete ID");
      await api("DELETE", `/api/v1/memories/${seg(id)}`);
      console.log(`Deleted memory ${id}.`);
    },
  },
];
