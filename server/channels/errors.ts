// What the channels' admin services refuse, with the HTTP status each becomes
// (REST) and the problems beside their fields (Settings › Channels).
export type ChannelErrorCode = "NOT_FOUND" | "FORBIDDEN" | "INVALID" | "CONFLICT" | "UNAVAILABLE";
export const CHANNEL_ERROR_STATUS: Record<ChannelErrorCode, number> = { NOT_FOUND: 404, FORBIDDEN: 403, INVALID: 400, CONFLICT: 409, UNAVAILABLE: 503 };

export class ChannelError extends Error {
  constructor(
    public readonly code: ChannelErrorCode,
    message: string,
    public readonly problems?: Array<{ field: string; message: string }>,
  ) {
    super(message);
    this.name = "ChannelError";
  }
}

type Schema<T> = { safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } } };

/** The input checked, or an INVALID error naming each field's problem. */
export function parseChannelInput<T>(schema: Schema<T>, input: unknown): T {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => ({ field: i.path.map(String).join(".") || "(input)", message: i.message }));
  throw new ChannelError("INVALID", problems.map((p) => `${p.field}: ${p.message}`).join("; "), problems);
}

export function requireChannelAdmin(actor: { role: string }, what: string) {
  if (actor.role !== "admin") throw new ChannelError("FORBIDDEN", `${what} needs the admin role; you are ${actor.role}`);
}
