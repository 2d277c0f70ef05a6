import { ConfigError } from "@/server/config";
import { DomainError } from "@/server/errors";
import type { components } from "../lib/rest-api.generated";

/** An error the CLI prints as one line, without a stack. */
export class CliError extends Error {}

/**
 * What the CLI prints on standard error before it exits with 1: one line in words, `rein: …`. An error
 * nobody foresaw says so; with REIN_DEBUG=1 its stack follows on the next lines (docs/cli.md#errors).
 */
export function errorOutput(err: unknown, debug = process.env.REIN_DEBUG === "1"): string {
  if (err instanceof CliError) return `rein: ${err.message}`;
  if (err instanceof ConfigError) return `rein: the settings are not valid: ${err.problems.join("; ")}`;
  // Rein's own refusals (a backup that is not one, a directory in use) are written for people already.
  if (err instanceof DomainError && err.code !== "INTERNAL_ERROR") return `rein: ${err.message}`;
  const line = `rein: ${oneLine(err)} (unexpected; REIN_DEBUG=1 shows where it came from)`;
  return debug && err instanceof Error && err.stack ? `${line}\n${err.stack}` : line;
}

/** An error's message on one line, with its cause's (fetch says "fetch failed" and keeps the reason in the cause). */
function oneLine(err: unknown): string {
  const message =
    (err instanceof Error ? err.message : String(err))
      .split("\n")
      .find((l) => l.trim())
      ?.trim() || "an error without a message";
  const cause: unknown = err instanceof Error ? err.cause : undefined;
  if (cause instanceof Error) {
    const code = "code" in cause && typeof cause.code === "string" ? cause.code : undefined;
    return `${message}: ${code ?? oneLine(cause)}`;
  }
  return message;
}

/** What a call of the typed client (lib/rest-client.ts) resolves to: the answer's data, or the error the server sent. */
type Answer<T> =
  { data: T; error?: never; response: Response } | { data?: never; error: components["schemas"]["Error"]; response: Response };

/**
 * The data of a REST call, or a CliError that says what the server refused:
 * `${status} ${code}: ${message}`, e.g. "404 NOT_FOUND: No run r-1".
 * `await ok(api.GET("/api/v1/runs/{id}", { params: { path: { id } } }))`.
 */
export async function ok<T>(call: Promise<Answer<T>>): Promise<T> {
  const answer = await call;
  if (answer.error === undefined && answer.response.ok) return answer.data;
  // Rein's errors are { error: { code, message } }; a proxy's page, or no body at all, has neither.
  const body: unknown = answer.error;
  const wire: object =
    typeof body === "object" && body !== null && "error" in body && typeof body.error === "object" && body.error !== null ? body.error : {};
  const code = "code" in wire ? wire.code : undefined;
  const message = "message" in wire ? wire.message : undefined;
  throw new CliError(`${answer.response.status} ${code ?? ""}: ${message ?? answer.response.statusText}`);
}
