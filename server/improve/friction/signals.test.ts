// Which friction the improver answers and which is a person's choice (docs/improvements.md#friction).
import { describe, expect, it } from "vitest";
import { signalOnlyBecause } from "./signals";

describe("signalOnlyBecause", () => {
  it("lets the improver answer the agent's own struggles", () => {
    expect(signalOnlyBecause("repeated_failure", "repeated_failure|shell|exit:1|awk: not a number")).toBeNull();
    expect(signalOnlyBecause("repeated_failure", "repeated_failure|read_file|NOT_FOUND|No file <path>")).toBeNull();
    expect(signalOnlyBecause("unknown_tool", "unknown_tool|csv_sum")).toBeNull();
  });

  it("keeps what people chose as a signal, with why", () => {
    expect(signalOnlyBecause("repeated_failure", "repeated_failure|shell|POLICY_DENIED|rule 2")).toMatch(/policy rule a person wrote/);
    expect(signalOnlyBecause("human_rejected", "human_rejected|shell|rule 1")).toMatch(/rejected/);
    expect(signalOnlyBecause("human_edited", "human_edited|shell")).toMatch(/edited/);
    expect(signalOnlyBecause("human_takeover", "human_takeover|terminal")).toMatch(/took over/);
    expect(signalOnlyBecause("budget_stop", "budget_stop|RUN_BUDGET_EXCEEDED")).toMatch(/limit/);
    expect(signalOnlyBecause("doom_loop", "doom_loop|no_progress")).not.toBeNull();
    expect(signalOnlyBecause("made_up", "made_up|x")).not.toBeNull();
  });
});
