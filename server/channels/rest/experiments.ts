// REST v1 for Evals experiments: the same services and checks as the Evals
// pages. Experiments are seen like runs (their team's members); operators of
// that team start and cancel them, admins delete them. `compare` and `gate`
// read finished results; the CLI's `eval run --gate` polls and then asks the gate.
import { z } from "zod";
import {
  MAX_COMPARED,
  cancelExperiment,
  checkGate,
  compareExperiments,
  deleteExperiment,
  experimentResults,
  getExperiment,
  listExperiments,
  startExperiment,
  EXPERIMENT_STATES,
  type DatasetActor,
} from "@/server/evals";
import { readJson } from "./http";
import type { Route, RouteContext } from "./v1";

const who = (ctx: RouteContext): DatasetActor => ({
  actor: ctx.actor,
  channel: ctx.req.headers["x-rein-channel"] === "cli" ? "cli" : "api",
});
const query = (ctx: RouteContext) => Object.fromEntries(ctx.url.searchParams);
const path = (rest = "") => new RegExp(`^/api/v1/experiments/([^/]+)${rest}$`);

const ListQuery = z.object({
  datasetId: z.string().min(1).optional(),
  status: z
    .string()
    .optional()
    .transform((s) => (s ? s.split(",").map((x) => x.trim()) : undefined))
    .pipe(z.array(z.enum(EXPERIMENT_STATES, { error: `status is a comma-separated list of ${EXPERIMENT_STATES.join(", ")}` })).optional()),
  limit: z.coerce.number({ error: "limit is a number" }).int().min(1, "limit is 1 or more").max(200, "limit is at most 200").default(50),
});
const CompareQuery = z.object({
  ids: z
    .string({ error: "ids is a comma-separated list of experiment ids" })
    .transform((s) =>
      s
        .split(",")
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .pipe(
      z
        .array(z.string())
        .min(2, "Compare needs at least two experiments in ids")
        .max(MAX_COMPARED, `Compare takes at most ${MAX_COMPARED} experiments`),
    ),
  baseline: z.string().min(1, "baseline is empty").optional(),
});
const GateQuery = z.object({
  baseline: z.string({ error: "baseline is the id of the experiment to compare with" }).min(1, "baseline is empty"),
});

export const EXPERIMENT_ROUTES: Route[] = [
  {
    method: "GET",
    pattern: /^\/api\/v1\/experiments$/,
    minRole: "viewer",
    handle: async (ctx) => ({ experiments: await listExperiments(ctx.db, ctx.actor, ListQuery.parse(query(ctx))) }),
  },
  {
    method: "POST",
    pattern: /^\/api\/v1\/experiments$/,
    minRole: "operator",
    status: 201,
    handle: async (ctx) =>
      startExperiment({ db: ctx.db, specs: ctx.kernel.specs, wake: ctx.experiments?.wake }, who(ctx), await readJson(ctx.req)),
  },
  {
    // Before /experiments/:id, which would take "compare" for an id.
    method: "GET",
    pattern: /^\/api\/v1\/experiments\/compare$/,
    minRole: "viewer",
    handle: async (ctx) => {
      const q = CompareQuery.parse(query(ctx));
      return compareExperiments(ctx.db, ctx.actor, q.ids, q.baseline ?? q.ids[0]);
    },
  },
  { method: "GET", pattern: path(), minRole: "viewer", handle: (ctx) => getExperiment(ctx.db, ctx.actor, ctx.params[0]) },
  { method: "GET", pattern: path("/results"), minRole: "viewer", handle: (ctx) => experimentResults(ctx.db, ctx.actor, ctx.params[0]) },
  {
    method: "GET",
    pattern: path("/gate"),
    minRole: "viewer",
    handle: async (ctx) => checkGate(ctx.db, ctx.actor, ctx.params[0], GateQuery.parse(query(ctx)).baseline),
  },
  {
    method: "POST",
    pattern: path("/cancel"),
    minRole: "operator",
    handle: (ctx) =>
      cancelExperiment(
        { db: ctx.db, cancelRun: (runId, actor) => ctx.kernel.pool.cancel(runId, { id: actor.userId, name: actor.name || actor.email }) },
        who(ctx),
        ctx.params[0],
      ),
  },
  { method: "DELETE", pattern: path(), minRole: "admin", handle: (ctx) => deleteExperiment(ctx.db, who(ctx), ctx.params[0]) },
];
