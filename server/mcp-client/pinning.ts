// A server's tool list kept as pinned definitions in the database
// (docs/mcp.md#changed-definitions): a new tool is stored off; a tool whose
// definition changed after an admin approved it is taken off (state
// "changed") until an admin reviews the difference; a tool the server no
// longer lists is "removed". pin.ts hashes one definition; this file keeps the
// pins of a whole server and turns a stored one into what the registry gets.
import type { Tool } from "@modelcontextprotocol/client";
import { recordAudit } from "@/server/audit";
import type { ReplayClass } from "@/server/tools";
import type { McpToolAnnotations } from "./annotations";
import { mcpToolName } from "./names";
import { canonicalJson, definitionHash, type McpToolDefinition } from "./pin";
import { storedJson, type LiveServer, type McpDeps, type ToolRow } from "./state";
import type { PinnedTool } from "./tool";

/** Tokens a definition costs a model, estimated as the JSON a provider is sent / 4. */
export function definitionTokens(def: { name: string; description?: string; inputSchema?: unknown }): number {
  return Math.ceil(JSON.stringify({ name: def.name, description: def.description ?? "", parameters: def.inputSchema ?? {} }).length / 4);
}

/** The part of a server's tool that is pinned: what the model is told, and its annotations. */
function definitionOf(tool: Tool): McpToolDefinition {
  return {
    name: tool.name,
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema !== undefined ? { outputSchema: tool.outputSchema } : {}),
    ...(tool.annotations !== undefined ? { annotations: tool.annotations } : {}),
  };
}

/** Stores the server's tool list against its pins; the caller then brings the registry up to date. */
export async function pinTools({ db, log }: Pick<McpDeps, "db" | "log">, server: Pick<LiveServer, "id" | "name">, tools: Tool[]) {
  const rows: ToolRow[] = await db.mcpTool.findMany({ where: { serverId: server.id } });
  const byName = new Map(rows.map((r) => [r.name, r]));
  const seen = new Set<string>();
  for (const tool of tools) {
    if (typeof tool.name !== "string" || !tool.name || tool.name.length > 128 || seen.has(tool.name)) continue;
    seen.add(tool.name);
    let def: McpToolDefinition;
    let hash: string;
    let canonical: string;
    try {
      def = definitionOf(tool);
      canonical = canonicalJson(def);
      hash = definitionHash(def);
    } catch (err) {
      log.error(`the MCP server ${server.name}'s tool ${tool.name.slice(0, 64)} is refused: ${(err as Error).message}`);
      continue;
    }
    const tokens = definitionTokens(def);
    const row = byName.get(tool.name);
    if (!row) {
      await db.mcpTool.create({
        data: {
          serverId: server.id,
          name: tool.name,
          exposedName: mcpToolName(server.name, tool.name),
          definition: canonical,
          pinnedHash: hash,
          state: "disabled",
          tokens,
        },
      });
      continue;
    }
    if (row.pinnedHash === hash) {
      if (row.pendingHash || row.state === "removed") {
        const state = row.state === "removed" ? "disabled" : row.state === "changed" ? "enabled" : row.state;
        await db.mcpTool.update({ where: { id: row.id }, data: { pendingDefinition: null, pendingHash: null, state } });
      }
      continue;
    }
    if (row.state === "enabled" || row.state === "changed") {
      // The rug pull: an approved tool now says something else. Off until reviewed.
      if (row.pendingHash === hash) continue;
      await db.mcpTool.update({ where: { id: row.id }, data: { state: "changed", pendingDefinition: canonical, pendingHash: hash } });
      await recordAudit(db, {
        kind: "mcp.tool.changed",
        actorId: "system",
        actorName: "Rein",
        channel: "kernel",
        subject: `mcp:${server.name}/${tool.name}`,
        fromState: row.state,
        toState: "changed",
        detail: { server: server.name, tool: tool.name, pinnedHash: row.pinnedHash, newHash: hash },
      });
      log.info(`  MCP: the tool ${tool.name} of ${server.name} changed its definition; it is off until an admin reviews it`);
    } else {
      // Never approved: nothing to protect; the stored definition follows the server.
      await db.mcpTool.update({
        where: { id: row.id },
        data: { definition: canonical, pinnedHash: hash, pendingDefinition: null, pendingHash: null, tokens, state: "disabled" },
      });
    }
  }
  for (const row of rows) {
    if (!seen.has(row.name) && row.state !== "removed") await db.mcpTool.update({ where: { id: row.id }, data: { state: "removed" } });
  }
}

/** A stored tool as the registry gets it: the pinned definition, never what the server says now. */
export function pinnedOf(live: Pick<LiveServer, "name" | "config">, row: ToolRow): PinnedTool {
  const def = storedJson<McpToolDefinition>(row.definition, { name: row.name });
  const schema = def.inputSchema && typeof def.inputSchema === "object" ? (def.inputSchema as Record<string, unknown>) : { type: "object" };
  return {
    server: live.name,
    name: row.name,
    exposedName: row.exposedName,
    description: typeof def.description === "string" ? def.description : "",
    inputSchema: schema,
    annotations: (def.annotations as McpToolAnnotations | undefined) ?? null,
    replayOverride: (row.replayOverride as ReplayClass | null) ?? null,
    callTimeoutMs: live.config.callTimeoutSec * 1000,
  };
}
