"use client";
// The Costs page's Recharts charts, each loaded when it is first drawn. Recharts
// is most of the page's code: imported directly it had to be fetched and run
// before the page could ask for its figures, even on a fresh install where no
// chart is drawn at all. Now the page draws its totals, tables and empty
// states at once, and a chart's place holds a skeleton until its code is in.
import dynamic from "next/dynamic";
import { Skeleton } from "@/components/ui";

const placeholder = (height: number) =>
  function ChartLoading() {
    return (
      <div role="status" aria-label="Loading the chart">
        <Skeleton height={height} />
      </div>
    );
  };

export const CostChart = dynamic(() => import("./cost-chart").then((m) => m.CostChart), { ssr: false, loading: placeholder(300) });
export const TokensChart = dynamic(() => import("./tokens-chart").then((m) => m.TokensChart), { ssr: false, loading: placeholder(140) });
export const OutcomeChart = dynamic(() => import("./outcome-chart").then((m) => m.OutcomeChart), { ssr: false, loading: placeholder(120) });
export const ToolSuccessChart = dynamic(() => import("./tool-success-chart").then((m) => m.ToolSuccessChart), {
  ssr: false,
  loading: placeholder(140),
});
export const BurnDownChart = dynamic(() => import("./burn-down-chart").then((m) => m.BurnDownChart), {
  ssr: false,
  loading: placeholder(224),
});
export const HumanRequestsBars = dynamic(() => import("./human-requests-bars").then((m) => m.HumanRequestsBars), {
  ssr: false,
  loading: placeholder(160),
});
