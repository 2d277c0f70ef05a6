// An MCP server asking a person during a call (elicitation, issue 18) becomes
// a Rein human request with its TTL, signed link, Inbox entry and audit row:
// a form with one list of choices is a `choose`, any other form a `provide`
// with the server's schema (checked the broker's way: patterns in linear
// time), and a URL to visit an `approve` ("done" or not). The call waits for
// the decision, whoever makes it and wherever. The request is keyed by the
// call and what was asked, so when a call is made again after a restart and
// the server asks the same thing, the answer already given is used and no
// one is asked twice.
import crypto from "node:crypto";
import type { ElicitRequest, ElicitResult } from "@modelcontextprotocol/client";
import type { Db } from "@/server/db";
import { DEFAULT_LADDER, createRequest, type RequestChange, type TtlLadder } from "@/server/hitl";
import { event, type NewRunEvent } from "@/server/kernel";

export const ELICITATION_SLOT = "elicitation" as const;
/** How long a person has, unless the TTL ladder says otherwise. */
const ELICITATION_TTL_SEC = 30 * 60;
const POLL_MS = 250;

export interface ElicitDeps {
  db: Db;
  ladder?: TtlLadder;
  onRequestCreated?: (change: RequestChange) => void;
  appendEvents(runId: string, events: NewRunEvent[]): Promise<unknown>;
  /** Cancels the request when the call is canceled (the broker's cancel, with its audit row). */
  cancel?(requestId: string, reason: string): Promise<unknown>;
  now?: () => Date;
}

export interface ElicitCall {
  runId: string;
  toolCallId: string;
  server: string;
  tool: string;
  exposedName: string;
  signal: AbortSignal;
}

type Params = ElicitRequest["params"];
type Property = {
  type?: string;
  title?: string;
  description?: string;
  enum?: unknown[];
  enumNames?: unknown[];
  oneOf?: Array<{ const?: unknown; title?: unknown }>;
};

/** The options of a form that is one list of choices, or null. */
function choicesOf(schema: {
  properties?: Record<string, Property>;
}): { key: string; options: Array<{ id: string; label: string }> } | null {
  const entries = Object.entries(schema.properties ?? {});
  if (entries.length !== 1) return null;
  const [key, prop] = entries[0];
  if (Array.isArray(prop.enum) && prop.enum.every((v) => typeof v === "string")) {
    const names = Array.isArray(prop.enumNames) ? prop.enumNames : [];
    return { key, options: (prop.enum as string[]).slice(0, 50).map((v, i) => ({ id: v, label: String(names[i] ?? v).slice(0, 200) })) };
  }
  if (Array.isArray(prop.oneOf) && prop.oneOf.every((o) => typeof o?.const === "string")) {
    return {
      key,
      options: prop.oneOf.slice(0, 50).map((o) => ({ id: o.const as string, label: String(o.title ?? o.const).slice(0, 200) })),
    };
  }
  return null;
}

const clip = (text: unknown, n: number) => String(text ?? "").slice(0, n);

type Answer = Record<string, string | number | boolean | string[]>;

/** A person's answer with the schema's defaults for what they left out (SEP-1034: the server gets a value for every field that has one). */
export function withDefaults(schema: unknown, value: Record<string, unknown>): Answer {
  const out: Answer = {};
  const properties = (schema as { properties?: Record<string, { default?: unknown }> } | null)?.properties ?? {};
  for (const [key, prop] of Object.entries(properties)) {
    const d = prop?.default;
    if (
      typeof d === "string" ||
      typeof d === "number" ||
      typeof d === "boolean" ||
      (Array.isArray(d) && d.every((x) => typeof x === "string"))
    )
      out[key] = d as Answer[string];
  }
  for (const [key, v] of Object.entries(value)) {
    if (
      typeof v === "string" ||
      typeof v === "number" ||
      typeof v === "boolean" ||
      (Array.isArray(v) && v.every((x) => typeof x === "string"))
    )
      out[key] = v as Answer[string];
  }
  return out;
}

export class McpElicitations {
  constructor(private readonly deps: ElicitDeps) {}

  private now() {
    return this.deps.now?.() ?? new Date();
  }

  async ask(call: ElicitCall, params: Params): Promise<ElicitResult> {
    const run = await this.deps.db.run.findUnique({ where: { id: call.runId }, select: { id: true, teamId: true, createdById: true } });
    if (!run) return { action: "decline" };
    const url = params.mode === "url" ? clip((params as { url?: unknown }).url, 2000) : null;
    const schema =
      params.mode === "url"
        ? null
        : ((params as { requestedSchema?: Record<string, unknown> }).requestedSchema ?? { type: "object", properties: {} });
    const choices = schema ? choicesOf(schema as { properties?: Record<string, Property> }) : null;
    const message = clip(params.message, 2000);
    // What was asked, by which call: the same question again (a redone call) finds the same request.
    const asked = crypto
      .createHash("sha256")
      .update(JSON.stringify([params.message, schema, url]))
      .digest("hex")
      .slice(0, 16);
    const title = clip(`${call.server} asks: ${message || (url ? "open a link" : "a few answers")}`, 200);
    const { row, created } = await createRequest(
      this.deps.db,
      {
        runId: run.id,
        nodeId: `mcp:${call.toolCallId}:${asked}`,
        checkpointId: "",
        slot: ELICITATION_SLOT,
        kind: url ? "approve" : choices ? "choose" : "provide",
        title,
        detail: url
          ? `${message}\n\nOpen ${url} and finish there, then approve. Reject tells the server you declined.`
          : `The MCP server ${call.server} asks this during the call to ${call.tool}. Reject tells the server you declined.`,
        payload: { tool: call.exposedName, ...(choices ? { options: choices.options } : url ? { args: { url } } : { schema: schema! }) },
        requiredRole: "operator",
        teamId: run.teamId,
        requestedById: run.createdById,
        ttlSec: ELICITATION_TTL_SEC,
      },
      this.deps.ladder ?? DEFAULT_LADDER,
      this.now(),
    );
    if (created) {
      await this.deps.appendEvents(run.id, [
        event(
          "human.requested",
          {
            requestId: row.id,
            kind: row.kind,
            title: row.title,
            requiredRole: row.requiredRole,
            expiresAt: row.expiresAt.toISOString(),
            tool: call.exposedName,
            toolCallId: call.toolCallId,
            slot: ELICITATION_SLOT,
          },
          { actor: `mcp:${call.server}`, key: `request:${row.id}` },
        ),
      ]);
      this.deps.onRequestCreated?.({ requestId: row.id, runId: run.id, state: row.state, teamId: row.teamId });
    }
    const closed = await this.waitFor(row.id, call.signal);
    if (!closed) {
      await this.deps.cancel?.(row.id, "the tool call was canceled").catch(() => {});
      return { action: "cancel" };
    }
    if (closed.state !== "APPROVED") return { action: closed.state === "REJECTED" ? "decline" : "cancel" };
    const decision = closed.decision ? (JSON.parse(closed.decision) as { optionId?: string; value?: unknown }) : {};
    if (url) return { action: "accept" };
    if (choices) return { action: "accept", content: { [choices.key]: decision.optionId ?? "" } };
    const value = decision.value;
    return {
      action: "accept",
      content: withDefaults(schema, value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {}),
    };
  }

  /** The request once a person (or the clock) closed it; null when the call was canceled first. */
  private async waitFor(requestId: string, signal: AbortSignal): Promise<{ state: string; decision: string | null } | null> {
    while (!signal.aborted) {
      const row = await this.deps.db.humanRequest.findUnique({ where: { id: requestId }, select: { state: true, decision: true } });
      if (!row) return { state: "CANCELED", decision: null };
      if (!["PENDING", "ESCALATED"].includes(row.state)) return row;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, POLL_MS);
        signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
      });
    }
    return null;
  }
}
