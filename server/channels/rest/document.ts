// The OpenAPI 3.1 description of REST v1, generated from the routes'
// declarations (docs/api.md#contract) and served at /api/v1/openapi.json.
// Schemas that carry an id (`.meta({ id: "Run" })`) become shared components.
import { z } from "zod";
import { ERROR_CODES } from "@/server/errors";
import type { FileResponse, Route } from "./contract";
import { REF_FIELDS, REF_WORDS, type RefKind } from "./refs";

/** The OpenAPI description, served to anyone (it holds no data). */
export const OPENAPI_PATH = "/api/v1/openapi.json";

type Json = Record<string, unknown>;

const ERROR_REF = { $ref: "#/components/schemas/Error" };
const errorResponse = (description: string) => ({ description, content: { "application/json": { schema: ERROR_REF } } });

const ErrorBody = {
  type: "object",
  required: ["error"],
  description: "Every error: a code from the table in docs/api.md#errors, a message in words, and for bad input each problem by field",
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: {
        code: { enum: [...ERROR_CODES] },
        message: { type: "string" },
        issues: {
          type: "array",
          items: {
            type: "object",
            required: ["path", "message"],
            properties: {
              path: { type: "string", description: "The field, dotted (items.0.goal); empty for the input as a whole" },
              message: { type: "string" },
            },
          },
        },
      },
    },
  },
};

/** JSON Schema for a zod schema; named schemas go into `components` and are referred to. */
function jsonSchema(schema: z.ZodType, io: "input" | "output", components: Record<string, unknown>): Json {
  const out = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    unrepresentable: (ctx) => (ctx.zodSchema._zod.def.type === "date" ? { type: "string", format: "date-time" } : undefined),
  }) as Json;
  delete out.$schema;
  const defs = (out.$defs ?? {}) as Record<string, unknown>;
  delete out.$defs;
  const retarget = (value: unknown) => JSON.parse(JSON.stringify(value).replaceAll('"#/$defs/', '"#/components/schemas/')) as Json;
  for (const [id, def] of Object.entries(defs)) {
    const wanted = retarget(def);
    if (id in components && JSON.stringify(components[id]) !== JSON.stringify(wanted))
      throw new Error(`Two different schemas are named ${id}; give one another id`);
    components[id] = wanted;
  }
  return retarget(out);
}

/** Says beside each field that names a thing that its name is taken too. */
function withRefWords(json: Json, kinds: Readonly<Record<string, RefKind>>): Json {
  const properties = json.properties as Record<string, Json> | undefined;
  if (!properties) return json;
  for (const [field, kind] of Object.entries(kinds)) {
    const p = properties[field];
    if (p) p.description = p.description ? `${REF_WORDS[kind]}. ${p.description as string}` : REF_WORDS[kind];
  }
  return json;
}

/** Path or query parameters from an object schema. */
function parameters(
  where: "path" | "query",
  schema: z.ZodType,
  components: Record<string, unknown>,
  kinds: Readonly<Record<string, RefKind>>,
): Json[] {
  const json = withRefWords(jsonSchema(schema, "input", components), kinds);
  const properties = (json.properties ?? {}) as Record<string, Json>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, s]) => {
    const { description, ...rest } = s;
    return {
      name,
      in: where,
      required: where === "path" || required.has(name),
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

const isFile = (r: z.ZodType | FileResponse): r is FileResponse => !(r instanceof z.ZodType);

function operation(route: Route, components: Record<string, unknown>): Json {
  const s = route.spec;
  const pathParams = z.object(
    Object.fromEntries(route.paramNames.map((n) => [n, (s.params?.shape[n] as z.ZodType | undefined) ?? z.string()])),
  );
  const params = [
    ...parameters("path", pathParams, components, s.names ?? {}),
    ...(s.query ? parameters("query", s.query, components, REF_FIELDS) : []),
  ];
  const success = isFile(s.response)
    ? {
        description: s.response.description,
        content: { [s.response.file]: { schema: { type: "string", contentMediaType: s.response.file } } },
      }
    : {
        description: s.responseDescription ?? (route.status === 201 ? "Created" : route.status === 202 ? "Accepted" : "OK"),
        content: { "application/json": { schema: jsonSchema(s.response, "output", components) } },
      };
  const errors: Record<string, unknown> = {};
  if (params.length || s.body) errors[400] = errorResponse("The input has problems: error.issues names each field");
  errors[401] = errorResponse("No token, or one that is revoked or expired");
  errors[403] = errorResponse(`Your role is below ${route.minRole}, or the thing is not in your team`);
  if (route.paramNames.length) errors[404] = errorResponse("No such thing, or not one you can see");
  for (const [status, description] of Object.entries(s.errors ?? {})) errors[status] = errorResponse(description);
  return {
    summary: s.summary,
    ...(s.description ? { description: s.description } : {}),
    "x-rein-role": route.minRole,
    tags: [route.path.split("/")[3]],
    ...(params.length ? { parameters: params } : {}),
    ...(s.body
      ? {
          requestBody: {
            required: !s.body.safeParse({}).success,
            content: { "application/json": { schema: withRefWords(jsonSchema(s.body, "input", components), REF_FIELDS) } },
          },
        }
      : {}),
    responses: { [route.status]: success, ...errors },
  };
}

/** The whole description: every route's operation under its path template. */
export function openApiDocument(routes: readonly Route[]) {
  const components: Record<string, unknown> = { Error: ErrorBody };
  const paths: Record<string, Record<string, unknown>> = {
    [OPENAPI_PATH]: {
      get: {
        summary: "This description of the API",
        description: "Needs no token.",
        "x-rein-role": "none",
        tags: ["openapi.json"],
        security: [],
        responses: { 200: { description: "OpenAPI 3.1", content: { "application/json": { schema: { type: "object" } } } } },
      },
    },
  };
  for (const route of routes) {
    const method = route.method.toLowerCase();
    paths[route.path] ??= {};
    if (paths[route.path][method]) throw new Error(`${route.method} ${route.path} is declared twice`);
    paths[route.path][method] = operation(route, components);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Rein API",
      version: "1",
      description: "Runs, agents, evals, people and settings for programs. Send an API token as 'Authorization: Bearer <token>'.",
    },
    servers: [{ url: "/" }],
    security: [{ bearer: [] }],
    paths,
    components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } }, schemas: components },
  };
}
