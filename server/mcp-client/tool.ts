// An MCP server's tool as Rein's ToolRunner sees it (docs/mcp.md): named
// <server>__<tool> for agents, mcp:<server>/<tool> for policy rules, with the
// replay class its annotations (or an admin) give it, and executed over the
// server's live connection with the call's cancellation and progress.
import { z } from "zod";
import type { ReplayClass, ToolContext, ToolDefinition } from "@/server/tools";
import { mcpReplayClass, type McpToolAnnotations } from "./annotations";
import { mcpPolicyName } from "./names";
import { canonicalJson } from "./pin";

/** What a person may take to answer an MCP server's question during a call, on top of the call's own limit. */
const PERSON_ALLOWANCE_MS = 35 * 60_000;

/** The model sees at most this much of a tool's description. */
export const MAX_DESCRIPTION = 4000;

export interface PinnedTool {
  server: string;
  name: string;
  exposedName: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations: McpToolAnnotations | null;
  replayOverride: ReplayClass | null;
  /** The hard cap of one call. */
  callTimeoutMs: number;
}

/** Calls the tool on its server; throws a ToolError the agent reads when it cannot. */
export type McpCaller = (tool: PinnedTool, args: Record<string, unknown>, ctx: ToolContext) => Promise<unknown>;

const Args = z.record(z.string(), z.unknown(), { error: "the arguments of an MCP tool are a JSON object" });

export function mcpToolDefinition(tool: PinnedTool, call: McpCaller): ToolDefinition<Record<string, unknown>> {
  const replayClass = mcpReplayClass(tool.annotations, tool.replayOverride);
  return {
    name: tool.exposedName,
    description: `${tool.description.slice(0, MAX_DESCRIPTION)}${tool.description ? " " : ""}(MCP tool ${tool.name} of the server ${tool.server})`,
    args: Args,
    inputSchema: tool.inputSchema,
    policyAlias: mcpPolicyName(tool.server, tool.name),
    replayClass,
    persistence: "external",
    origin: "mcp",
    ...(replayClass === "idempotent_with_key" ? { idempotencyKey: (args: Record<string, unknown>) => canonicalJson(args) } : {}),
    // The call keeps its own clocks (a minute without progress, the hard cap), which stop while a person
    // answers the server; the runner's deadline only catches a call that somehow never ends.
    timeoutMs: tool.callTimeoutMs + PERSON_ALLOWANCE_MS,
    async execute(args, ctx) {
      return call(tool, args, ctx);
    },
  };
}

/** The most of a server's answer Rein passes on (about 16k tokens): a flood would fill the model's context and the event log. */
export const MAX_RESULT_CHARS = 64 * 1024;

function cut(text: string): string {
  if (text.length <= MAX_RESULT_CHARS) return text;
  return `${text.slice(0, MAX_RESULT_CHARS)}\n[… ${text.length - MAX_RESULT_CHARS} more characters cut: the MCP server's answer is longer than Rein passes on]`;
}

/** What a CallToolResult becomes for the agent: text as text, structured content kept, binary content described, never inlined; all of it at most MAX_RESULT_CHARS. */
export function resultForAgent(result: { content?: unknown[]; structuredContent?: unknown; isError?: boolean }): unknown {
  const whole = shapeResult(result);
  if (typeof whole === "string") return cut(whole);
  const json = JSON.stringify(whole) ?? "null";
  return json.length <= MAX_RESULT_CHARS ? whole : { truncated: true, text: cut(json) };
}

function shapeResult(result: { content?: unknown[]; structuredContent?: unknown; isError?: boolean }): unknown {
  const content = (result.content ?? []).map((item) => {
    const c = item as Record<string, unknown>;
    switch (c.type) {
      case "text":
        return { type: "text", text: c.text };
      case "image":
      case "audio":
        return {
          type: c.type,
          mimeType: c.mimeType,
          bytes: typeof c.data === "string" ? Math.floor((c.data.length * 3) / 4) : 0,
          note: "binary content is not shown to the agent",
        };
      case "resource_link":
        return { type: "resource_link", uri: c.uri, name: c.name, mimeType: c.mimeType };
      case "resource": {
        const r = (c.resource ?? {}) as Record<string, unknown>;
        return typeof r.text === "string"
          ? { type: "resource", uri: r.uri, mimeType: r.mimeType, text: r.text }
          : { type: "resource", uri: r.uri, mimeType: r.mimeType, note: "binary content is not shown to the agent" };
      }
      default:
        return { type: String(c.type ?? "unknown") };
    }
  });
  const texts = content.filter((c): c is { type: "text"; text: unknown } => c.type === "text");
  const onlyText = texts.length === content.length && texts.every((t) => typeof t.text === "string");
  if (result.structuredContent !== undefined)
    return { structuredContent: result.structuredContent, ...(content.length ? { content } : {}) };
  if (onlyText) return texts.map((t) => t.text).join("\n");
  return { content };
}

/** The text of an error result, for the ToolError the agent reads. */
export function errorText(result: { content?: unknown[] }): string {
  const text = (result.content ?? [])
    .map((c) => ((c as { type?: string; text?: unknown }).type === "text" ? String((c as { text?: unknown }).text ?? "") : ""))
    .filter(Boolean)
    .join("\n");
  return text.slice(0, 4000) || "the tool reported an error without a message";
}
