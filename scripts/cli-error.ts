import type { components } from "../lib/rest-api.generated";

/** An error the CLI prints as one line, without a stack. */
export class CliError extends Error {}

/** What the CLI prints on standard error before it exits with 1: a CliError as one line, anything else with its stack. */
export function errorOutput(err: unknown): unknown {
  return err instanceof CliError ? `rein: ${err.message}` : err;
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
