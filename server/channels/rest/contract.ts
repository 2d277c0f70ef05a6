// One declaration per REST route (docs/api.md#contract): its method, path,
// least role, the zod schemas of its path parameters, query, body and
// response, and its handler. The router matches and validates with it, the
// OpenAPI document (document.ts) is generated from it, and the typed client
// from that document; nothing about a route is written twice.
import type { IncomingMessage } from "node:http";
import { z } from "zod";
import type { Actor, Role } from "@/server/identity";
import { DomainError, invalidInput } from "@/server/errors";
import type { Services } from "@/server/app";
import { readJson, StreamBody } from "./http";
import { decodePathPart } from "./input";
import { resolveRefs, type RefKind } from "./refs";

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** A route's path parameters, query or body: an object of named fields. */
type Fields = z.ZodObject<z.ZodRawShape>;

/** A response that is a file streamed as it is made (an archive, a JSONL export), not JSON. */
export interface FileResponse {
  file: string;
  description: string;
}

/** A route that answers with a file of this content type. */
export const fileResponse = (contentType: string, description: string): FileResponse => ({ file: contentType, description });

type Out<R> = R extends z.ZodType ? z.input<R> : StreamBody;
type In<S> = S extends z.ZodType ? z.output<S> : Record<string, never>;

/** What a handler gets: the caller, the services (docs/architecture.md#composition-root), and its inputs already checked against their schemas. */
export interface HandlerContext<P, Q, B> extends Services {
  req: IncomingMessage;
  url: URL;
  actor: Actor;
  /** Where invitation and reset links point: REIN_PUBLIC_URL, else this request's origin. */
  linkBase: string;
  /** "cli" when the command-line client sent the request, else "api" (recorded in the audit log). */
  channel: "cli" | "api";
  params: In<P>;
  query: In<Q>;
  body: In<B>;
}

export interface RouteSpec<P extends Fields | undefined, Q extends Fields | undefined, B extends z.ZodType | undefined, R> {
  method: Method;
  /** The path with its parameters in braces: /api/v1/runs/{id}/events. */
  path: `/api/v1/${string}`;
  minRole: Role;
  /** What it does, in a line (the docs' route table shows it). */
  summary: string;
  /** The rest of what a program needs to know, in sentences. */
  description?: string;
  /** The status of a success: 201 for a create, 202 for work accepted to do later. */
  status?: 200 | 201 | 202;
  /** The path parameters; a parameter not declared here is text. */
  params?: P;
  /** Path parameters that name a thing people name, taken by id or by name (docs/api.md#conventions). */
  names?: Readonly<Record<string, RefKind>>;
  /** The path parameter that may hold slashes, sent as they are or as %2F (a model id such as meta-llama/llama-3.3-70b). */
  slashed?: string;
  query?: Q;
  body?: B;
  /** The largest body taken, in bytes, where a route takes a file in its body. */
  bodyLimit?: number;
  /** The answer: a zod schema of what the handler returns, or a file. */
  response: R;
  /** What the answer is, in words (the schema says its shape). */
  responseDescription?: string;
  /** The errors worth naming beside the usual ones, by status: what each means here. */
  errors?: Partial<Record<400 | 403 | 404 | 409 | 413 | 422 | 429 | 503, string>>;
  handle(ctx: HandlerContext<P, Q, B>): Promise<Out<R>> | Out<R>;
}

/** A route as the router and the document generator see it. */
export interface Route {
  method: Method;
  path: string;
  pattern: RegExp;
  paramNames: string[];
  minRole: Role;
  status: number;
  spec: RouteSpec<Fields | undefined, Fields | undefined, z.ZodType | undefined, z.ZodType | FileResponse>;
  /** Checks the inputs, calls the handler, and (when asked) checks its answer against the response schema. */
  run(ctx: RawContext, match: RegExpMatchArray, checkResponse: boolean): Promise<unknown>;
}

/** What the router knows before a route's inputs are checked. */
export interface RawContext extends Services {
  req: IncomingMessage;
  url: URL;
  actor: Actor;
  linkBase: string;
}

const PARAM = /\{([A-Za-z][A-Za-z0-9]*)\}/g;

/** The path's parameters in order, and the pattern that matches it (a parameter is one path segment). */
function compile(path: string, slashed?: string): { pattern: RegExp; paramNames: string[] } {
  const paramNames = [...path.matchAll(PARAM)].map((m) => m[1]);
  if (slashed !== undefined && !paramNames.includes(slashed)) throw new Error(`${path} has no parameter ${slashed}`);
  const source = path
    .split(PARAM)
    .map((part, i) => (i % 2 === 0 ? part.replace(/[.*+?^$()|[\]\\]/g, "\\$&") : part === slashed ? "(.+)" : "([^/]+)"))
    .join("");
  return { pattern: new RegExp(`^${source}$`), paramNames };
}

/** Parses with a schema; its problems are INVALID_INPUT naming each field (`whole` when the input as a whole is wrong). */
function check<S extends z.ZodType>(schema: S, value: unknown, whole: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalidInput(parsed.error, whole);
  return parsed.data;
}

export function defineRoute<
  P extends Fields | undefined = undefined,
  Q extends Fields | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  R extends z.ZodType | FileResponse = z.ZodType,
>(spec: RouteSpec<P, Q, B, R>): Route {
  const { pattern, paramNames } = compile(spec.path, spec.slashed);
  const declared = spec.params ? Object.keys(spec.params.shape) : [];
  const undeclared = declared.filter((n) => !paramNames.includes(n));
  if (undeclared.length)
    throw new Error(`${spec.method} ${spec.path} declares parameters that are not in its path: ${undeclared.join(", ")}`);
  const paramSchema = z.object(
    Object.fromEntries(paramNames.map((n) => [n, (spec.params?.shape[n] as z.ZodType | undefined) ?? z.string()])),
  );
  const status = spec.status ?? 200;
  return {
    method: spec.method,
    path: spec.path,
    pattern,
    paramNames,
    minRole: spec.minRole,
    status,
    spec: spec as unknown as Route["spec"],
    async run(raw, match, checkResponse) {
      const decoded = match.slice(1).map(decodePathPart);
      if (decoded.some((p) => p === null)) throw new DomainError("BAD_PATH", `The path ${raw.url.pathname} has malformed percent-encoding`);
      const { db, actor } = raw;
      const pathParams = check(paramSchema, Object.fromEntries(paramNames.map((n, i) => [n, decoded[i]])), "path");
      const params = spec.names ? await resolveRefs(db, actor, pathParams, spec.names) : pathParams;
      const query = spec.query ? await resolveRefs(db, actor, check(spec.query, Object.fromEntries(raw.url.searchParams), "query")) : {};
      const body = spec.body ? await resolveRefs(db, actor, check(spec.body, await readJson(raw.req, spec.bodyLimit), "body")) : {};
      const channel = raw.req.headers["x-rein-channel"] === "cli" ? "cli" : "api";
      const ctx = { ...raw, channel, params, query, body } as HandlerContext<P, Q, B>;
      const answer = await spec.handle(ctx);
      if (checkResponse) checkAnswer(spec, answer);
      return answer;
    },
  };
}

/**
 * In tests every answer is checked against its route's response schema, so a
 * schema that no longer says what the route sends fails the test that called it.
 */
function checkAnswer(spec: { method: string; path: string; response: z.ZodType | FileResponse }, answer: unknown) {
  if (!(spec.response instanceof z.ZodType)) {
    if (!(answer instanceof StreamBody))
      throw new DomainError("INTERNAL_ERROR", `${spec.method} ${spec.path} declares a file but answered JSON`);
    return;
  }
  const parsed = spec.response.safeParse(answer);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "(the answer)"}: ${i.message}`).join("; ");
    throw new DomainError("INTERNAL_ERROR", `${spec.method} ${spec.path} answered what its response schema does not allow: ${problems}`);
  }
}
