// Rein's errors as A2A JSON-RPC errors (docs/a2a.md#errors): a run the caller
// may not see is the protocol's TaskNotFound, a run that cannot be cancelled
// TaskNotCancelable; any other refusal keeps Rein's code, in the message and
// as the JSON-RPC code from the one error table. Nothing else is shown.
import {
  A2AError,
  JsonRpcRequestMalformedError,
  JsonRpcTaskNotCancelableError,
  JsonRpcTaskNotFoundError,
  JsonRpcTransportError,
} from "@a2a-js/sdk/errors";
import { DomainError, ERROR_TABLE, INTERNAL_MESSAGE, toDomainError, type ErrorCode } from "@/server/errors";

/** JSON-RPC's code for invalid method parameters. */
const INVALID_PARAMS = -32602;

export function a2aRefusal(code: ErrorCode, message: string): A2AError {
  if (code === "NOT_FOUND") return new JsonRpcTaskNotFoundError({ message });
  if (code === "INVALID_INPUT")
    return new JsonRpcRequestMalformedError({ message: `INVALID_INPUT: ${message}`, envelopeCode: INVALID_PARAMS });
  return new JsonRpcTransportError({
    jsonrpc: "2.0",
    id: null,
    error: { code: ERROR_TABLE[code].jsonRpc, message: `${code}: ${message}` },
  });
}

export const taskNotFound = (id: string) => new JsonRpcTaskNotFoundError({ message: `Task ${id} was not found` });
export const notCancelable = (why: string) => new JsonRpcTaskNotCancelableError({ message: why });

/** Any thrown value as an error the SDK's transport turns into a JSON-RPC error; unexpected ones are logged, not shown. */
export function asA2aError(err: unknown, log: { error(message: string, err?: unknown): void }): A2AError {
  if (err instanceof A2AError) return err;
  const domain = err instanceof DomainError ? err : toDomainError(err, "A2A");
  if (domain.code === "INTERNAL_ERROR") {
    if (!(err instanceof DomainError)) log.error("an A2A request failed", err);
    return a2aRefusal("INTERNAL_ERROR", INTERNAL_MESSAGE);
  }
  return a2aRefusal(domain.code, domain.message);
}
