// The agent editor shows the doom-loop defaults as placeholders; they are the
// server's (lib/ may not import server code at runtime, so this lives here).
import { describe, expect, it } from "vitest";
import * as limits from "@/server/limits";
import { DEFAULT_MAX_FAILING_STEPS, DEFAULT_MAX_REPEATS } from "@/lib/agent-draft";

describe("the agent editor's placeholders", () => {
  it("are the server's doom-loop defaults", () => {
    expect(DEFAULT_MAX_REPEATS).toBe(limits.DEFAULT_MAX_REPEATS);
    expect(DEFAULT_MAX_FAILING_STEPS).toBe(limits.DEFAULT_MAX_FAILING_STEPS);
  });
});
