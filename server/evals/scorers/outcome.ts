// The run's outcome: how it ended.
import { z } from "zod";
import { TERMINAL_STATES } from "@/server/kernel";
import { defineScorer, passFail } from "./types";

const Outcome = z.enum(TERMINAL_STATES as unknown as ["succeeded", "failed", "canceled"], {
  error: () => `an outcome is one of ${TERMINAL_STATES.join(", ")}`,
});

export const outcome = defineScorer({
  kind: "outcome",
  settings: z.object({
    /** The outcome (or any of the outcomes) that passes; default succeeded. */
    equals: z
      .preprocess(
        (v) => (typeof v === "string" ? [v] : v),
        z.array(Outcome, { error: "equals is an outcome or a list of outcomes" }).min(1, "equals needs at least one outcome"),
      )
      .default(["succeeded"]),
  }),
  async score(input, config) {
    const wanted: string[] = config.equals;
    const passed = wanted.includes(input.status);
    const reason = input.statusReason ? ` (${input.statusReason})` : "";
    return passFail(passed, `the run ${input.status}${reason}; ${passed ? "as expected" : `expected ${wanted.join(" or ")}`}`);
  },
});
