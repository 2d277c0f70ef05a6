// The one error table, walked: every code maps on every transport, and each
// transport turns a DomainError of each kind into its own answer through it,
// while an error Rein did not mean a person to read leaks nothing.
import { describe, expect, it, vi } from "vitest";
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import {
  DomainError,
  ERROR_CODES,
  ERROR_TABLE,
  INTERNAL_MESSAGE,
  httpErrorBody,
  isErrorCode,
  jsonRpcError,
  socketFailure,
  toDomainError,
  trpcErrorOf,
  type ErrorCode,
} from "./index";

const SECRET = "connection to postgres://admin:hunter2@db failed";

/** tRPC's own HTTP status for each of its codes (from @trpc/server). */
const TRPC_STATUS: Record<string, number> = {
  PARSE_ERROR: 400,
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_SUPPORTED: 405,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE_CONTENT: 422,
  TOO_MANY_REQUESTS: 429,
  INTERNAL_SERVER_ERROR: 500,
};

describe("ERROR_TABLE", () => {
  it("has one row for every code and no other", () => {
    expect(Object.keys(ERROR_TABLE).sort()).toEqual([...ERROR_CODES].sort());
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
  });

  it.each(ERROR_CODES)("%s maps on every transport", (code) => {
    const row = ERROR_TABLE[code];
    expect(row.status).toBeGreaterThanOrEqual(400);
    expect(row.status).toBeLessThan(600);
    expect(Object.keys(TRPC_STATUS)).toContain(row.trpc);
    // Only a fault of Rein's is one on tRPC: a missing part of the server is a precondition the page shows, not a crash.
    expect(TRPC_STATUS[row.trpc] >= 500).toBe(code === "INTERNAL_ERROR");
    expect(Number.isInteger(row.jsonRpc)).toBe(true);
    expect(row.jsonRpc).toBeLessThanOrEqual(-32000);
    expect(row.jsonRpc).toBeGreaterThanOrEqual(-32768);
    expect(row.socket.trim().length).toBeGreaterThan(0);
  });

  it("keeps one spelling for invalid input: the old INVALID and BAD_REQUEST are not codes", () => {
    expect(isErrorCode("INVALID_INPUT")).toBe(true);
    expect(isErrorCode("INVALID")).toBe(false);
    expect(isErrorCode("BAD_REQUEST")).toBe(false);
    expect(isErrorCode(42)).toBe(false);
  });
});

describe("REST", () => {
  it.each(ERROR_CODES)("a DomainError %s answers its status and code", (code) => {
    const { status, body } = httpErrorBody(new DomainError(code, `words for ${code}`));
    expect(status).toBe(ERROR_TABLE[code].status);
    expect(body).toEqual({ error: { code, message: `words for ${code}` } });
  });

  it("lists each invalid field as issues", () => {
    const err = new DomainError("INVALID_INPUT", "goal: goal is required", { issues: [{ path: "goal", message: "goal is required" }] });
    expect(httpErrorBody(err).body.error.issues).toEqual([{ path: "goal", message: "goal is required" }]);
  });

  it("a schema's refusal is INVALID_INPUT naming each field", () => {
    const parsed = z.object({ goal: z.string({ error: "goal is required" }), n: z.number() }).safeParse({ n: "x" });
    const domain = toDomainError(parsed.error, "test");
    const { status, body } = httpErrorBody(domain);
    expect(status).toBe(400);
    expect(body.error.code).toBe("INVALID_INPUT");
    expect(body.error.issues?.map((i) => i.path)).toEqual(["goal", "n"]);
    expect(body.error.message).toMatch(/^goal: goal is required; n: /);
  });

  it("an unknown error is INTERNAL_ERROR, 500, and its message only reaches the log", () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const { status, body } = httpErrorBody(toDomainError(new Error(SECRET), "REST API"));
    expect(status).toBe(500);
    expect(body).toEqual({ error: { code: "INTERNAL_ERROR", message: INTERNAL_MESSAGE } });
    expect(JSON.stringify(body)).not.toContain("hunter2");
    expect(log).toHaveBeenCalledWith("REST API error", expect.objectContaining({ message: SECRET }));
    log.mockRestore();
  });
});

describe("tRPC", () => {
  it.each(ERROR_CODES)("a DomainError %s becomes its tRPC code with its message and itself as the cause", (code) => {
    const err = new DomainError(code, `words for ${code}`);
    const mapped = trpcErrorOf(err);
    expect(mapped).toBeInstanceOf(TRPCError);
    expect(mapped!.code).toBe(ERROR_TABLE[code].trpc);
    expect(mapped!.message).toBe(`words for ${code}`);
    expect(mapped!.cause).toBe(err);
  });

  it("a schema's refusal is BAD_REQUEST with the field named, for the form", () => {
    const parsed = z.object({ days: z.number().max(90, "at most 90 days") }).safeParse({ days: 400 });
    const mapped = trpcErrorOf(parsed.error)!;
    expect(mapped.code).toBe("BAD_REQUEST");
    expect(mapped.message).toBe("days: at most 90 days");
    expect((mapped.cause as DomainError).issues).toEqual([{ path: "days", message: "at most 90 days" }]);
  });

  it("leaves an error that is not a domain error to the middleware, which hides it", () => {
    expect(trpcErrorOf(new Error(SECRET))).toBeNull();
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    expect(toDomainError(new Error(SECRET), "tRPC")).toMatchObject({ code: "INTERNAL_ERROR", message: INTERNAL_MESSAGE });
    log.mockRestore();
  });
});

describe("MCP", () => {
  it.each(ERROR_CODES)("a refusal %s carries the table's JSON-RPC code", (code) => {
    expect(jsonRpcError(new DomainError(code, "why"))).toEqual({ code: ERROR_TABLE[code].jsonRpc, message: "why" });
  });

  it("keeps the JSON-RPC meanings of bad JSON, a bad request and an internal error", () => {
    const rpc = (code: ErrorCode) => ERROR_TABLE[code].jsonRpc;
    expect([rpc("INVALID_JSON"), rpc("INVALID_INPUT"), rpc("INTERNAL_ERROR")]).toEqual([-32700, -32600, -32603]);
  });
});

describe("sockets", () => {
  it.each(ERROR_CODES)("a DomainError %s is a failed acknowledgement with its code and words", (code) => {
    expect(socketFailure(new DomainError(code, `words for ${code}`))).toEqual({ ok: false, code, error: `words for ${code}` });
  });

  it("an unknown error is the table's words for INTERNAL_ERROR, never its own", () => {
    const failure = socketFailure(new Error(SECRET));
    expect(failure).toEqual({ ok: false, code: "INTERNAL_ERROR", error: ERROR_TABLE.INTERNAL_ERROR.socket });
    expect(JSON.stringify(failure)).not.toContain("hunter2");
  });
});

describe("area errors", () => {
  it("keep their class for instanceof and take their kind from the one list", async () => {
    const { PeopleError } = await import("@/server/identity");
    const { WorkspaceFileError } = await import("@/server/tools");
    const { AgentError } = await import("@/server/agents");
    const expired = new PeopleError("LINK_EXPIRED", "This link has expired");
    expect(expired).toBeInstanceOf(DomainError);
    expect([expired.code, expired.reason, httpErrorBody(expired).status]).toEqual(["GONE", "LINK_EXPIRED", 410]);
    const binary = new WorkspaceFileError("BINARY", "logo.png is a binary file");
    expect([binary.code, trpcErrorOf(binary)!.code]).toEqual(["UNPROCESSABLE", "UNPROCESSABLE_CONTENT"]);
    const spec = new AgentError("INVALID_INPUT", "The agent spec has a problem", [{ field: "model", message: "no such model" }]);
    expect(httpErrorBody(spec).body.error).toEqual({
      code: "INVALID_INPUT",
      message: "The agent spec has a problem",
      issues: [{ path: "model", message: "no such model" }],
    });
  });
});
