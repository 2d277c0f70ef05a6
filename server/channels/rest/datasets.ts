// REST v1 for Evals datasets: the same service, checks and audit as the Evals
// pages. Everyone sees their teams' datasets and everyone's; changing one
// needs the operator role in its team (an admin for everyone's), archiving
// (DELETE) an admin. Items travel as JSON, or as JSONL files (export, import).
import { Readable } from "node:stream";
import { z } from "zod";
import {
  MAX_JSONL_BYTES,
  addItem,
  createDataset,
  editItem,
  exportJsonl,
  getDataset,
  importJsonl,
  listDatasets,
  listItems,
  removeItem,
  setDatasetArchived,
  updateDataset,
  type DatasetActor,
} from "@/server/evals";
import { StreamBody, readJson } from "./http";
import type { Route, RouteContext } from "./v1";

const who = (ctx: RouteContext): DatasetActor => ({
  actor: ctx.actor,
  channel: ctx.req.headers["x-rein-channel"] === "cli" ? "cli" : "api",
});

const ListQuery = z.object({ includeArchived: z.enum(["true", "false"], { error: "includeArchived is true or false" }).optional() });
const ImportBody = z.object({ jsonl: z.string({ error: "jsonl is the file's text, one item a line" }) });
/** The JSONL file, escaped in a JSON body, with room for its quoting. */
const MAX_IMPORT_BODY = MAX_JSONL_BYTES * 2;

const query = (ctx: RouteContext) => Object.fromEntries(ctx.url.searchParams);
const path = (rest = "") => new RegExp(`^/api/v1/datasets/([^/]+)${rest}$`);

export const DATASET_ROUTES: Route[] = [
  {
    method: "GET",
    pattern: /^\/api\/v1\/datasets$/,
    minRole: "viewer",
    async handle(ctx) {
      const q = ListQuery.parse(query(ctx));
      return { datasets: await listDatasets(ctx.db, ctx.actor, { includeArchived: q.includeArchived === "true" }) };
    },
  },
  {
    method: "POST",
    pattern: /^\/api\/v1\/datasets$/,
    minRole: "operator",
    status: 201,
    handle: async (ctx) => createDataset(ctx.db, who(ctx), await readJson(ctx.req)),
  },
  { method: "GET", pattern: path(), minRole: "viewer", handle: (ctx) => getDataset(ctx.db, ctx.actor, ctx.params[0]) },
  {
    method: "PATCH",
    pattern: path(),
    minRole: "operator",
    handle: async (ctx) => updateDataset(ctx.db, who(ctx), ctx.params[0], await readJson(ctx.req)),
  },
  { method: "DELETE", pattern: path(), minRole: "admin", handle: (ctx) => setDatasetArchived(ctx.db, who(ctx), ctx.params[0], true) },
  {
    method: "GET",
    pattern: path("/items"),
    minRole: "viewer",
    handle: async (ctx) => ({ items: await listItems(ctx.db, ctx.actor, ctx.params[0]) }),
  },
  {
    method: "POST",
    pattern: path("/items"),
    minRole: "operator",
    status: 201,
    handle: async (ctx) => addItem(ctx.db, who(ctx), ctx.params[0], await readJson(ctx.req)),
  },
  {
    method: "PUT",
    pattern: path("/items/([^/]+)"),
    minRole: "operator",
    handle: async (ctx) => editItem(ctx.db, who(ctx), ctx.params[0], ctx.params[1], await readJson(ctx.req)),
  },
  {
    method: "DELETE",
    pattern: path("/items/([^/]+)"),
    minRole: "operator",
    handle: (ctx) => removeItem(ctx.db, who(ctx), ctx.params[0], ctx.params[1]),
  },
  {
    method: "GET",
    pattern: path("/export"),
    minRole: "viewer",
    async handle(ctx) {
      const { filename, jsonl } = await exportJsonl(ctx.db, ctx.actor, ctx.params[0]);
      return new StreamBody(Readable.from([Buffer.from(jsonl, "utf8")]), {
        "content-type": "application/x-ndjson; charset=utf-8",
        "content-disposition": `attachment; filename="${filename}"`,
      });
    },
  },
  {
    method: "POST",
    pattern: path("/import"),
    minRole: "operator",
    async handle(ctx) {
      const body = ImportBody.parse(await readJson(ctx.req, MAX_IMPORT_BODY));
      return importJsonl(ctx.db, who(ctx), ctx.params[0], body.jsonl);
    },
  },
];
