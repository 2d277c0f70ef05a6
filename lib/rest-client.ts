// The typed client of REST v1 (docs/api.md#client): openapi-fetch over the
// types openapi-typescript generates from the OpenAPI description, so a call's
// path, parameters, body and answer are checked by the compiler.
import createClient, { type Client } from "openapi-fetch";
import type { paths } from "./rest-api.generated";

export type RestPaths = paths;
export type RestClient = Client<paths>;

export interface RestClientOptions {
  /** Where Rein is served, e.g. http://localhost:3000. */
  baseUrl: string;
  /** An API token (npm run rein -- token create). */
  token: string;
  /** "cli" records the command-line client as the channel in the audit log. */
  channel?: "cli";
  fetch?: typeof fetch;
}

export function restClient(options: RestClientOptions): RestClient {
  return createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { authorization: `Bearer ${options.token}`, ...(options.channel ? { "x-rein-channel": options.channel } : {}) },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
