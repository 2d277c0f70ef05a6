// rein://runs/{runId}/events: a run's latest events as JSON, for clients
// that read resources; team-scoped like REST /api/v1/runs/{id}/events.
import { ProtocolError, ResourceTemplate, type McpServer } from "@modelcontextprotocol/server";
import { RunNotFoundError, getRun, listRuns } from "@/server/kernel";
import type { ToolContext } from "./context";

export const RUN_EVENTS_TEMPLATE = "rein://runs/{runId}/events";
/** The most events one read returns: the latest ones. */
export const MAX_RESOURCE_EVENTS = 500;
/** JSON-RPC code for a resource that does not exist (MCP specification, resources). */
const RESOURCE_NOT_FOUND = -32002;

const eventsUri = (runId: string) => `rein://runs/${encodeURIComponent(runId)}/events`;

export function registerRunEvents(server: McpServer, ctx: ToolContext): void {
  const template = new ResourceTemplate(RUN_EVENTS_TEMPLATE, {
    // The caller's latest runs, so a client can offer them.
    list: async () => {
      const { runs } = await listRuns(ctx.db, { limit: 20 }, ctx.actor);
      return {
        resources: runs.map((r) => ({
          uri: eventsUri(r.id),
          name: `Events of run ${r.id}`,
          description: `${r.agentName}: ${r.goal.slice(0, 200)}`,
          mimeType: "application/json",
        })),
      };
    },
    complete: {
      runId: async (value) => {
        const { runs } = await listRuns(ctx.db, { limit: 100 }, ctx.actor);
        return runs
          .map((r) => r.id)
          .filter((id) => id.startsWith(value))
          .slice(0, 20);
      },
    },
  });
  server.registerResource(
    "run-events",
    template,
    {
      title: "A run's events",
      description: `The latest ${MAX_RESOURCE_EVENTS} events of a Rein run, as JSON`,
      mimeType: "application/json",
    },
    async (uri, variables) => {
      const runId = decodeURIComponent(String(variables.runId ?? ""));
      let lastSeq: number;
      try {
        lastSeq = (await getRun(ctx.db, runId, ctx.actor)).lastSeq;
      } catch (err) {
        if (err instanceof RunNotFoundError) throw new ProtocolError(RESOURCE_NOT_FOUND, err.message, { uri: uri.href });
        throw err;
      }
      const events = await ctx.kernel.store.listEvents(runId, Math.max(0, lastSeq - MAX_RESOURCE_EVENTS), MAX_RESOURCE_EVENTS);
      const body = { runId, events, truncated: lastSeq > MAX_RESOURCE_EVENTS };
      return { contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(body) }] };
    },
  );
}
