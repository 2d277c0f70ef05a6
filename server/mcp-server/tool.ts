// A tool of Rein's MCP server as data (name, input schema, role, hints, and
// what it does), and the one path every call takes: the role check, the
// call, the audit row, and errors turned into tool errors a model can read.
import { z } from "zod";
import type { CallToolResult, InputRequiredResult, McpServer, ServerContext, ToolAnnotations } from "@modelcontextprotocol/server";
import { recordAudit } from "@/server/audit";
import { gateRefusal, type Role } from "@/server/identity";
import type { ToolContext } from "./context";
import { INTERNAL_FAILURE, McpToolError, describeFailure, failureResult, type ToolFailure } from "./errors";

/** The call as the SDK hands it over: its id, cancellation, progress token, and (2026-07-28) the client's answers. */
export type ToolExtra = ServerContext;

export interface ToolAnswer {
  /** The answer as JSON: the call's structured content, and its text after `text`. */
  result: Record<string, unknown>;
  /** A sentence for a model reading text only, before the JSON. */
  text?: string;
  /** What the audit row is about, besides the arguments' runId and requestId. */
  runId?: string;
  detail?: Record<string, unknown>;
  /**
   * On 2026-07-28, an answer other than a complete result, sent as it is:
   * input_required (the call needs the client's user first, docs/mcp-server.md#human-requests)
   * or a task (docs/mcp-server.md#runs-as-tasks).
   */
  raw?: InputRequiredResult | Record<string, unknown>;
}

export interface McpTool<S extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  /** The least role the caller needs somewhere; what the call touches is then checked against its team. */
  minRole: Role;
  input: S;
  annotations: Omit<ToolAnnotations, "title">;
  run(args: z.infer<z.ZodObject<S>>, ctx: ToolContext, extra: ToolExtra): Promise<ToolAnswer>;
}

/** Keeps a tool's argument types tied to its input schema. */
export function defineTool<S extends z.ZodRawShape>(tool: McpTool<S>): McpTool<S> {
  return tool;
}

function answerResult(answer: ToolAnswer): CallToolResult {
  const structured = JSON.parse(JSON.stringify(answer.result)) as Record<string, unknown>;
  const json = JSON.stringify(structured, null, 2);
  return { content: [{ type: "text", text: answer.text ? `${answer.text}\n\n${json}` : json }], structuredContent: structured };
}

async function audit(
  ctx: ToolContext,
  tool: McpTool,
  args: Record<string, unknown>,
  answer: ToolAnswer | null,
  failure: ToolFailure | null,
) {
  const runId = answer?.runId ?? (typeof args.runId === "string" ? args.runId : null);
  const requestId = typeof args.requestId === "string" ? args.requestId : null;
  try {
    await recordAudit(ctx.db, {
      kind: "mcp.tool_call",
      actorId: ctx.actor.userId,
      actorName: ctx.actor.name || ctx.actor.email,
      channel: "mcp",
      subject: tool.name,
      runId,
      requestId,
      detail: { ok: !failure, ...(failure ? { error: failure.code } : {}), ...answer?.detail },
    });
  } catch (err) {
    ctx.log.error(`could not audit the MCP call of ${tool.name}`, err);
  }
}

export function registerTool<S extends z.ZodRawShape>(server: McpServer, ctx: ToolContext, tool: McpTool<S>): void {
  const call = async (args: z.infer<z.ZodObject<S>>, extra: ToolExtra): Promise<CallToolResult | InputRequiredResult> => {
    let answer: ToolAnswer | null = null;
    let failure: ToolFailure | null = null;
    try {
      const refusal = gateRefusal(ctx.actor, tool.minRole);
      if (refusal) throw new McpToolError("FORBIDDEN", refusal);
      answer = await tool.run(args, ctx, extra);
    } catch (err) {
      failure = describeFailure(err);
      if (!failure) {
        ctx.log.error(`the MCP tool ${tool.name} failed`, err);
        failure = INTERNAL_FAILURE;
      }
    }
    await audit(ctx, tool as unknown as McpTool, args as Record<string, unknown>, answer, failure);
    if (failure) return failureResult(failure);
    return (answer!.raw as CallToolResult | InputRequiredResult | undefined) ?? answerResult(answer!);
  };
  // The SDK's generic callback type does not follow a generic shape; the schema and `call` agree by defineTool.
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: z.object(tool.input),
      annotations: { title: tool.title, ...tool.annotations },
    },
    call as never,
  );
}
