// One request to the gateway as the endpoints see it: who is calling (a run
// bound to a token, or a team key), the answer to write, and the client's
// signal (aborted when it goes away).
import type { IncomingMessage, ServerResponse } from "node:http";
import { GatewayRefusal, refusalOf } from "./errors";
import type { Caller } from "./turn";
import type { GatewayLog } from "./types";

export interface Exchange {
  log: GatewayLog;
  caller: Caller;
  req: IncomingMessage;
  res: ServerResponse;
  /** Aborted when the client closes the connection before its answer is written. */
  signal: AbortSignal;
}

/** The refusal for a thrown value; one Rein did not mean is logged here, and its words stay in the log. */
export function refusalFor(x: Pick<Exchange, "log" | "caller">, err: unknown): GatewayRefusal {
  const refusal = refusalOf(err);
  if (!(err instanceof GatewayRefusal) && refusal.kind === "internal")
    x.log.error(`model gateway: ${x.caller.label}: a request failed`, err);
  return refusal;
}
