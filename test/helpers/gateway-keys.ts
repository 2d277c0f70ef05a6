// The model gateway for team keys (docs/gateway.md#team-keys) on a real HTTP
// server of its own, wired as the server wires it (server/app/compose.ts):
// the test kernel's router, telemetry sink, prices and team budgets.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { GATEWAY_PATH, TeamKeyGateway } from "@/server/gateway";
import { Budgets } from "@/server/limits";
import type { TestKernel } from "./kernel";

export interface GatewayKeyServer {
  gateway: TeamKeyGateway;
  /** The base URL clients are given: http://127.0.0.1:<port>/api/gateway/v1 */
  base: string;
  /** What the gateway logged. */
  logged: string[];
  close(): Promise<void>;
}

/** Needs a test kernel created with { telemetry: true } (and { models: true } for configured providers). */
export async function startGatewayKeyServer(tk: TestKernel): Promise<GatewayKeyServer> {
  const telemetry = tk.telemetry;
  if (!telemetry) throw new Error("startGatewayKeyServer needs a test kernel created with { telemetry: true }");
  const logged: string[] = [];
  const gateway = new TeamKeyGateway({
    db: tk.t.db,
    router: tk.models?.router ?? tk.kernel.deps.router,
    teamBudget: new Budgets({
      db: tk.t.db,
      flush: () => telemetry.sink.flush(),
      unwritten: (scope) => telemetry.sink.unwrittenCalls(scope),
    }),
    spans: telemetry.sink,
    prices: telemetry.telemetry.prices,
    log: {
      info: (m) => void logged.push(m),
      error: (m, e) => void logged.push(`${m} ${e instanceof Error ? e.stack : String(e ?? "")}`),
    },
  });
  const server = http.createServer((req, res) => {
    if ((req.url ?? "").startsWith(`${GATEWAY_PATH}/`)) return void gateway.handle(req, res);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}${GATEWAY_PATH}/v1`;
  return {
    gateway,
    base,
    logged,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
