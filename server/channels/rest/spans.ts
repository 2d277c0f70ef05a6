// REST v1 span search
// (docs/traces-and-costs.md#traces--spans-searching-spans-across-runs,
// docs/api.md): the Traces page's search for programs, with the same filters,
// paging and visibility (admins every span, others the spans of their teams'
// runs and of runs they launched).
import { searchSpans } from "@/server/telemetry";
import type { Route } from "./v1";

const NUMBERS = new Set(["minDurationMs", "maxDurationMs", "minCostUsd", "limit"]);

export const SPAN_ROUTES: Route[] = [
  {
    method: "GET",
    pattern: /^\/api\/v1\/spans$/,
    minRole: "viewer",
    handle({ url, actor, db }) {
      // An empty parameter means no filter; a misspelt one is an error (SpanSearch is strict).
      // Numbers stay text when they are not numbers, so the error says what was sent.
      const query = Object.fromEntries(
        [...url.searchParams]
          .filter(([, v]) => v.trim() !== "")
          .map(([k, v]) => [k, NUMBERS.has(k) && Number.isFinite(Number(v)) ? Number(v) : v]),
      );
      return searchSpans(db, actor, query);
    },
  },
];
