// Attack suite: another team's runtime tool through the agent editor's tool
// list. A runtime tool an improver made for team B is B's improvement: the
// Improvements pages show it to B alone. The list of tools the agent form
// offers must not show it to team A either, by name or by its description
// (written from B's runs).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callerFor } from "@/test/helpers/services";
import type { Actor } from "@/server/identity";
import { Improve } from "@/server/improve";
import { McpServers } from "@/server/mcp-client";
import { createTestKernel, SILENT_LOG, type TestKernel } from "../helpers/kernel";
import { agentPeople, type AgentPeople } from "../helpers/agents";

let tk: TestKernel;
let p: AgentPeople;
let improve: Improve;
/** No MCP server attached: the list is the built-in and runtime tools. */
let mcp: McpServers;
const SECRET_DESCRIPTION = "Sums the payroll column of beta's salary exports";

const caller = (actor: Actor) => callerFor(tk, actor, { mcp });
const toolNames = async (actor: Actor) => (await caller(actor).agents.tools()).map((t) => t.name);

beforeAll(async () => {
  tk = await createTestKernel();
  mcp = new McpServers({ db: tk.t.db, registry: tk.kernel.deps.registry, dataDir: tk.t.dir, log: SILENT_LOG });
  p = await agentPeople(tk);
  const tool = (name: string, teams: string[], description: string) => ({
    tier: 1,
    kind: "runtime_tool",
    name,
    version: 1,
    state: "active",
    description,
    source: "function run() { return 1; }",
    argsSchema: JSON.stringify({ type: "object", properties: {} }),
    scopeAgents: "[]",
    scopeTeams: JSON.stringify(teams),
  });
  await tk.t.db.improvement.createMany({
    data: [
      tool("payroll_sum", [p.betaId], SECRET_DESCRIPTION),
      tool("alpha_sum", [p.alphaId], "Alpha's sums"),
      tool("shared_sum", [], "Everyone's sums"),
    ],
  });
  improve = new Improve({ db: tk.t.db, kernel: tk.kernel, log: SILENT_LOG });
  await improve.start({ sweepMs: 60_000 });
}, 60_000);

afterAll(async () => {
  await improve?.stop();
  await tk?.cleanup();
});

describe("the agent editor's list of tools", () => {
  it("shows team A neither the name nor the description of team B's runtime tool", async () => {
    expect(tk.kernel.deps.registry.get("payroll_sum")).toBeDefined();
    for (const actor of [p.alphaOperator, p.alphaViewer]) {
      const tools = await caller(actor).agents.tools();
      expect(tools.map((t) => t.name)).not.toContain("payroll_sum");
      expect(JSON.stringify(tools)).not.toContain("payroll column");
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["alpha_sum", "shared_sum", "shell"]));
    }
  });

  it("shows it to team B and to admins", async () => {
    expect(await toolNames(p.betaOperator)).toContain("payroll_sum");
    expect(await toolNames(p.betaOperator)).not.toContain("alpha_sum");
    expect(await toolNames(p.admin)).toEqual(expect.arrayContaining(["payroll_sum", "alpha_sum", "shared_sum"]));
  });
});
