// REST v1 on a real HTTP server of its own, for tests that call it as
// programs do: through the typed client (client), or, for what the contract
// forbids (a malformed body, a download's headers), raw (call).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { restClient, type RestClient } from "@/lib/rest-client";
import type { Services } from "@/server/app";
import { createRestHandler } from "@/server/channels";

export interface RestAnswer {
  status: number;
  text: string;
  /** The body as JSON; null when it is not JSON (a YAML or JSONL download). */
  json: any;
  type: string | null;
  disposition: string | null;
}

export interface RestTestServer {
  base: string;
  /** The typed client (lib/rest-client.ts) with this token; "cli" records the CLI as the channel. */
  client(token: string, channel?: "cli"): RestClient;
  /** A raw request: for what the typed client would not let a test send. */
  call(token: string, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<RestAnswer>;
  close(): Promise<void>;
}

/** Serves createRestHandler on a free loopback port, with services from test/helpers/services.ts. */
export async function startRestServer(services: Services): Promise<RestTestServer> {
  const handler = createRestHandler(services, { authSecret: "test-secret" });
  const server = http.createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    client: (token, channel) => restClient({ baseUrl: base, token, ...(channel ? { channel } : {}) }),
    async call(token, method, path, body, headers = {}) {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
      const text = await res.text();
      let json = null;
      try {
        json = JSON.parse(text);
      } catch {
        /* a download that is not JSON */
      }
      return { status: res.status, text, json, type: res.headers.get("content-type"), disposition: res.headers.get("content-disposition") };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
