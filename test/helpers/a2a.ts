// For tests of Rein's A2A endpoints (docs/a2a.md): the handler on a real HTTP
// server on a free loopback port, the SDK's own client with a token, and raw
// requests for what a well-behaved client would never send.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from "@a2a-js/sdk/client";
import type { Services } from "@/server/app";
import { createA2aHandler } from "@/server/channels";

export interface A2aTestServer {
  /** http://127.0.0.1:<port>, also Rein's public URL here. */
  base: string;
  /** The agent's address, as a client is pointed at it (the card is under it). */
  agentBase(id: string): string;
  /** The SDK's client for an exposed agent, sending this token (none: no Authorization header). */
  client(id: string, token?: string): Promise<Client>;
  /** A raw request to a path of the server. */
  call(method: string, path: string, opts?: { token?: string; body?: string; headers?: Record<string, string> }): Promise<RawAnswer>;
  close(): Promise<void>;
}

export interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export const withToken =
  (token: string | undefined): typeof fetch =>
  (input, init) => {
    const headers = new Headers(init?.headers);
    if (token) headers.set("authorization", `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };

export async function startA2aServer(services: Services): Promise<A2aTestServer> {
  let handler: ReturnType<typeof createA2aHandler> | null = null;
  const server = http.createServer((req, res) => void handler!(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  handler = createA2aHandler(services, { publicUrl: base, log: { error() {} } });
  const agentBase = (id: string) => `${base}/a2a/agents/${id}/`;
  return {
    base,
    agentBase,
    async client(id, token) {
      const fetchImpl = withToken(token);
      const factory = new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
          transports: [new JsonRpcTransportFactory({ fetchImpl })],
          cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
        }),
      );
      return factory.createFromUrl(agentBase(id));
    },
    async call(method, path, { token, body, headers = {} } = {}) {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(body !== undefined ? { "content-type": "application/json" } : {}),
          ...headers,
        },
        body,
      });
      const text = await res.text();
      let json = null;
      try {
        json = JSON.parse(text);
      } catch {
        /* a stream or an empty body */
      }
      return { status: res.status, headers: res.headers, text, json };
    },
    close: () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      return closed;
    },
  };
}
