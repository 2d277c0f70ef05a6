// What the run spent: cost, model calls, time. Each passes at or under its limit.
import { z } from "zod";
import { plural } from "./common";
import { defineScorer, passFail } from "./types";
import { formatCost } from "@/lib/format";

export const costAtMost = defineScorer({
  kind: "cost_at_most",
  settings: z.object({ usd: z.number({ error: "usd is the most the run may cost, in USD" }).min(0, "usd cannot be negative").finite() }),
  async score(input, config) {
    if (input.costUsd === null) return { skipped: true, reason: "the run's cost is not known" };
    const passed = input.costUsd <= config.usd;
    return passFail(passed, `the run cost ${formatCost(input.costUsd)}; the limit is ${formatCost(config.usd)}`);
  },
});

export const callsAtMost = defineScorer({
  kind: "calls_at_most",
  settings: z.object({
    calls: z
      .number({ error: "calls is the most model calls the run may make" })
      .int("calls is a whole number")
      .min(0, "calls cannot be negative"),
  }),
  async score(input, config) {
    const passed = input.modelCalls <= config.calls;
    return passFail(passed, `the run made ${plural(input.modelCalls, "model call")}; the limit is ${config.calls}`);
  },
});

export const durationAtMost = defineScorer({
  kind: "duration_at_most",
  settings: z.object({
    seconds: z.number({ error: "seconds is the longest the run may take" }).positive("seconds must be more than 0").finite(),
  }),
  async score(input, config) {
    if (input.durationMs === null) return { skipped: true, reason: "the run never started, so it has no duration" };
    const seconds = input.durationMs / 1000;
    const passed = seconds <= config.seconds;
    return passFail(passed, `the run took ${seconds.toFixed(1)} s; the limit is ${config.seconds} s`);
  },
});
