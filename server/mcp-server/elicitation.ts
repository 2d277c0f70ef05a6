// Human requests asked of the MCP client's user as elicitations, while
// wait_for_run waits (MCP 2025-06-18 and later). Without sessions the
// client's answer comes back with another POST: PendingElicitations joins it
// to the waiting call, by the caller and an id only this server hands out.
// Whether a client can elicit is only said in its initialize request, so it
// is remembered per token (ClientCapabilities); a client that cannot answers
// with an error, and the request waits in the Inbox as before.
import crypto from "node:crypto";
import { z } from "zod";
import type { ElicitResult, JSONRPCMessage, RequestId } from "@modelcontextprotocol/server";
import type { DecisionInput, HumanRequestView } from "@/server/hitl";

/** The first protocol revision with elicitation. */
const ELICITATION_SINCE = "2025-06-18";
const REMEMBERED_CLIENTS = 1_000;

/** Which tokens' clients said, when they initialized, that they can elicit. */
export class ClientCapabilities {
  private readonly elicits = new Map<string, boolean>();

  remember(key: string, elicitation: boolean): void {
    this.elicits.delete(key);
    this.elicits.set(key, elicitation);
    if (this.elicits.size > REMEMBERED_CLIENTS) this.elicits.delete(this.elicits.keys().next().value!);
  }

  canElicit(key: string, protocolVersion: string | undefined): boolean {
    return !!protocolVersion && protocolVersion >= ELICITATION_SINCE && this.elicits.get(key) === true;
  }
}

/** The key a client is remembered by: its credential, never stored as such. */
export function clientKey(authorization: string | undefined, userId: string): string {
  return crypto
    .createHash("sha256")
    .update(authorization ?? `user:${userId}`)
    .digest("hex");
}

type Answer = { result?: unknown; error?: unknown };

/** What Rein reads of a client's answer to its question (the rest is ignored). */
export const ElicitAnswer = z.object({
  action: z.enum(["accept", "decline", "cancel"]),
  content: z.record(z.string().max(200), z.unknown()).optional(),
});

/** Elicitations sent and not yet answered, by caller and id. */
export class PendingElicitations {
  private readonly waiting = new Map<string, (answer: Answer) => void>();

  private key(userId: string, id: RequestId) {
    return `${userId}\u0000${id}`;
  }

  expect(userId: string, id: string, resolve: (answer: Answer) => void): () => void {
    const key = this.key(userId, id);
    this.waiting.set(key, resolve);
    return () => void this.waiting.delete(key);
  }

  /** A response the caller sent; true when it answered one of their elicitations. */
  answer(userId: string, message: { id?: unknown; result?: unknown; error?: unknown }): boolean {
    if (typeof message.id !== "string") return false;
    const resolve = this.waiting.get(this.key(userId, message.id));
    if (!resolve) return false;
    this.waiting.delete(this.key(userId, message.id));
    resolve({ result: message.result, error: message.error });
    return true;
  }
}

/** What one request's tools use to ask the client's user. */
export interface Elicitor {
  /** The user's answer, or null when they declined, the client could not ask, or the wait ended first. */
  ask(
    params: { message: string; requestedSchema: Record<string, unknown> },
    relatedRequestId: RequestId,
    signal: AbortSignal,
    timeoutMs: number,
  ): Promise<ElicitResult | null>;
}

export function elicitor(deps: {
  userId: string;
  pending: PendingElicitations;
  send(message: JSONRPCMessage, relatedRequestId: RequestId): Promise<void>;
}): Elicitor {
  return {
    async ask(params, relatedRequestId, signal, timeoutMs) {
      const id = `rein-elicit-${crypto.randomUUID()}`;
      let release = () => {};
      let timer: NodeJS.Timeout | undefined;
      let onAbort = () => {};
      const answer = new Promise<Answer | null>((resolve) => {
        release = deps.pending.expect(deps.userId, id, resolve);
        timer = setTimeout(() => resolve(null), timeoutMs);
        onAbort = () => resolve(null);
        signal.addEventListener("abort", onAbort, { once: true });
      });
      try {
        await deps.send(
          { jsonrpc: "2.0", id, method: "elicitation/create", params: { mode: "form", ...params } } as JSONRPCMessage,
          relatedRequestId,
        );
        const got = await answer;
        const parsed = got && !got.error ? ElicitAnswer.safeParse(got.result) : null;
        return parsed?.success && parsed.data.action === "accept" ? (parsed.data as ElicitResult) : null;
      } finally {
        release();
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
      }
    },
  };
}

/** The form that answers a request, and how its content becomes a decision; null for kinds a form cannot answer well (provide). */
export function decisionForm(
  r: HumanRequestView,
): { message: string; requestedSchema: Record<string, unknown>; decision(content: Record<string, unknown>): DecisionInput } | null {
  const message = `Rein's run asks: ${r.title}${r.detail ? `\n\n${r.detail}` : ""}`;
  const comment = { type: "string", title: "Comment", description: "Why (kept with the run and in the audit log)" };
  const commentOf = (content: Record<string, unknown>) =>
    // A comment is kept whole up to the decision's limit; what a client sends past it is cut, not refused.
    typeof content.comment === "string" && content.comment.trim() ? content.comment.slice(0, 4000) : undefined;
  const choice = (choices: string[]) => ({
    type: "object",
    properties: { decision: { type: "string", title: "Decision", enum: choices }, comment },
    required: ["decision"],
  });
  switch (r.kind) {
    case "approve":
      return {
        message,
        requestedSchema: choice(["approve", "reject"]),
        decision: (c) => ({ decision: c.decision === "approve" ? "approve" : "reject", comment: commentOf(c) }),
      };
    case "veto":
      return {
        message,
        requestedSchema: choice(["approve", "veto"]),
        decision: (c) => ({ decision: c.decision === "approve" ? "approve" : "veto", comment: commentOf(c) }),
      };
    case "choose": {
      const options = r.payload.options ?? [];
      if (!options.length) return null;
      return {
        message: `${message}\n\n${options.map((o) => `- ${o.id}: ${o.label}`).join("\n")}`,
        requestedSchema: {
          type: "object",
          properties: { optionId: { type: "string", title: "Option", enum: options.map((o) => o.id) }, comment },
          required: ["optionId"],
        },
        decision: (c) => ({ decision: "choose", optionId: String(c.optionId), comment: commentOf(c) }),
      };
    }
    default:
      return null;
  }
}
