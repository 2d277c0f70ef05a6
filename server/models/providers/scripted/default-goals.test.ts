// Every demo agent a person starts from the New run dialog has a default goal,
// and it is the goal its script is written for.
import { describe, expect, it } from "vitest";
import { BUILTIN_SPECS, DEMO_FIX_AGENT, IMPROVER_AGENT } from "@/server/kernel";
import { DEMO_BROWSER_GOAL, DEMO_CSV_GOAL, DEMO_DEPLOY_GOAL, DEMO_HOSTED_GOAL, DEMO_LONG_GOAL, DEMO_MCP_GOAL } from "@/server/models";
import { DEMO_GOALS } from "@/lib/demo-goals";

describe("DEMO_GOALS", () => {
  it("has a goal for every built-in scripted agent a person launches", () => {
    const launched = BUILTIN_SPECS.filter(
      (s) => s.model.startsWith("scripted/") && s.name !== IMPROVER_AGENT && s.name !== DEMO_FIX_AGENT,
    ).map((s) => s.name);
    expect(launched.length).toBeGreaterThan(5);
    for (const name of launched) expect(DEMO_GOALS[name], name).toBeTruthy();
  });

  it("uses the goals the demo scripts are written for", () => {
    expect(DEMO_GOALS["demo-csv"]).toBe(DEMO_CSV_GOAL);
    expect(DEMO_GOALS["demo-long"]).toBe(DEMO_LONG_GOAL);
    expect(DEMO_GOALS["demo-mcp"]).toBe(DEMO_MCP_GOAL);
    expect(DEMO_GOALS["demo-hosted"]).toBe(DEMO_HOSTED_GOAL);
    expect(DEMO_GOALS["demo-browser"]).toBe(DEMO_BROWSER_GOAL);
    expect(DEMO_GOALS["demo-deploy"]).toBe(DEMO_DEPLOY_GOAL);
  });
});
