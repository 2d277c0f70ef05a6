// What the channels' admin services refuse, with the problems beside their
// fields (Settings › Channels); transports map the code (docs/development.md#errors).
import { DomainError, issuesOf } from "@/server/errors";

export type ChannelErrorCode = "NOT_FOUND" | "FORBIDDEN" | "INVALID_INPUT" | "CONFLICT" | "UNAVAILABLE";

export class ChannelError extends DomainError {
  constructor(
    code: ChannelErrorCode,
    message: string,
    public readonly problems?: Array<{ field: string; message: string }>,
  ) {
    super(code, message, issuesOf(problems));
    this.name = "ChannelError";
  }
}

type Schema<T> = {
  safeParse(
    v: unknown,
  ): { success: true; data: T } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } };
};

/** The input checked, or an INVALID_INPUT error naming each field's problem. */
export function parseChannelInput<T>(schema: Schema<T>, input: unknown): T {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => ({ field: i.path.map(String).join(".") || "(input)", message: i.message }));
  throw new ChannelError("INVALID_INPUT", problems.map((p) => `${p.field}: ${p.message}`).join("; "), problems);
}

export function requireChannelAdmin(actor: { role: string }, what: string) {
  if (actor.role !== "admin") throw new ChannelError("FORBIDDEN", `${what} needs the admin role; you are ${actor.role}`);
}
