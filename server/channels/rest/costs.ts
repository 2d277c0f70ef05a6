// REST v1 for the Costs dashboards (docs/traces-and-costs.md#costs,
// docs/api.md): the same service and visibility as the Costs page (admins every
// team, others their teams).
import { costSummary } from "@/server/telemetry";
import type { Route } from "./v1";

export const COST_ROUTES: Route[] = [
  {
    method: "GET",
    pattern: /^\/api\/v1\/costs$/,
    minRole: "viewer",
    handle({ url, actor, db }) {
      // An empty parameter (from=) means the default; a misspelt one is an error (CostQuery is strict).
      const query = Object.fromEntries([...url.searchParams].filter(([, v]) => v.trim() !== ""));
      return costSummary(db, query, actor);
    },
  },
];
