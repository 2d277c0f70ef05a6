// One request to the gateway as the endpoints see it: the bound run, the
// answer to write, and the client's signal (aborted when it goes away).
import type { IncomingMessage, ServerResponse } from "node:http";
import { GatewayRefusal, refusalOf } from "./errors";
import type { Binding } from "./turn";
import type { GatewayDeps } from "./types";

export interface Exchange {
  deps: GatewayDeps;
  binding: Binding;
  req: IncomingMessage;
  res: ServerResponse;
  /** Aborted when the client closes the connection before its answer is written. */
  signal: AbortSignal;
}

/** The refusal for a thrown value; one Rein did not mean is logged here, and its words stay in the log. */
export function refusalFor(x: Pick<Exchange, "deps" | "binding">, err: unknown): GatewayRefusal {
  const refusal = refusalOf(err);
  if (!(err instanceof GatewayRefusal) && refusal.kind === "internal")
    x.deps.log.error(`model gateway: run ${x.binding.run.runId}: a request failed`, err);
  return refusal;
}
