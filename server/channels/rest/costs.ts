// REST v1 for the Costs dashboards (docs/traces-and-costs.md#costs,
// docs/api.md): the same service and visibility as the Costs page (admins every
// team, others their teams).
import { z } from "zod";
import { COST_GROUP_BYS, CostQuery, costSummary } from "@/server/telemetry";
import { defineRoute, type Route } from "./contract";

/** An empty parameter (from=) means the default. */
const unlessBlank = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? undefined : v), schema);

// A misspelt parameter is an error, as CostQuery is strict.
const CostsQuery = z.strictObject({
  groupBy: unlessBlank(CostQuery.shape.groupBy),
  from: unlessBlank(CostQuery.shape.from).describe("First day, inclusive (ISO date or date-time, UTC); default 29 days before to"),
  to: unlessBlank(CostQuery.shape.to).describe("Last day, inclusive (ISO date or date-time, UTC); default today"),
});

const CostTotals = z.object({
  costUsd: z.number().describe("USD, from the price table"),
  calls: z.number().int().describe("Model calls"),
  inputTokens: z.number().int(),
  outputTokens: z.number().int(),
  cachedInputTokens: z.number().int(),
});

const CostSummary = z.object({
  from: z.string().describe("The first day counted (YYYY-MM-DD, UTC)"),
  to: z.string().describe("The last day counted (YYYY-MM-DD, UTC)"),
  groupBy: z.enum(COST_GROUP_BYS),
  scope: z.enum(["all", "teams"]).describe("all for admins; teams when only your teams are counted"),
  totals: CostTotals.extend({ runs: z.number().int().describe("Runs created in the range") }),
  groups: z
    .array(
      CostTotals.extend({ key: z.string().describe("The team id, workflow or model"), label: z.string().describe("Its name to show") }),
    )
    .describe("Every group in the range, most expensive first"),
  series: z
    .object({
      keys: z.array(z.object({ key: z.string(), label: z.string() })).describe("The most expensive groups, the rest summed as __other__"),
      days: z.array(
        z.object({
          day: z.string().describe("YYYY-MM-DD"),
          total: z.number().describe("USD that day"),
          values: z.record(z.string(), z.number()).describe("USD that day by series key"),
        }),
      ),
    })
    .describe("The cost chart: one point per day (zeros included) with a value per series key"),
  tokensByModel: z.array(CostTotals.extend({ model: z.string() })),
  runsByOutcome: z.array(z.object({ status: z.string(), count: z.number().int() })).describe("Runs created in the range, by status"),
  unpricedModels: z.array(z.string()).describe("Models in the range with no price: their calls count as $0"),
});

export const COST_ROUTES: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/costs",
    minRole: "viewer",
    summary: "Cost and token totals by team, workflow or model",
    description: "From the daily rollups; admins see every team, others their teams.",
    query: CostsQuery,
    response: CostSummary,
    handle: ({ query, actor, db }) => costSummary(db, query, actor),
  }),
];
