// Attack suite: another team's MCP tool through the agent editor's tool list.
// An admin can limit an MCP tool to one team; a person of another team must
// not learn from the list of tools the agent form offers its name or its
// description (the server's words, which may name that team's systems).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callerFor } from "@/test/helpers/services";
import type { Actor } from "@/server/identity";
import { McpServers } from "@/server/mcp-client";
import { createTestKernel, SILENT_LOG, type TestKernel } from "../helpers/kernel";
import { agentPeople, type AgentPeople } from "../helpers/agents";
import { fakeServerConfig } from "../helpers/fake-mcp";

let tk: TestKernel;
let p: AgentPeople;
let mcp: McpServers;

const toolsOf = async (actor: Actor) => callerFor(tk, actor, { mcp }).agents.tools();
const namesOf = async (actor: Actor) => (await toolsOf(actor)).map((t) => t.name);

beforeAll(async () => {
  tk = await createTestKernel({ secrets: true });
  p = await agentPeople(tk);
  mcp = new McpServers({
    db: tk.t.db,
    registry: tk.kernel.deps.registry,
    dataDir: tk.t.dir,
    keyring: tk.keyring,
    secrets: tk.kernel.secrets?.redactor,
    log: SILENT_LOG,
    connectTimeoutMs: 3_000,
  });
  await mcp.start();
  await mcp.add(p.admin, { name: "fake", transport: "stdio", stdio: fakeServerConfig() });
  await mcp.setTool(p.admin, "fake", "hello", { enabled: true, allowedAgents: ["*"], allowedTeams: [p.betaId] });
  await mcp.setTool(p.admin, "fake", "probe", { enabled: true, allowedAgents: ["*"], allowedTeams: [p.alphaId] });
  await mcp.setTool(p.admin, "fake", "fails", { enabled: true, allowedAgents: ["*"], allowedTeams: ["*"] });
}, 60_000);

afterAll(async () => {
  await mcp?.stop();
  await tk?.cleanup();
});

describe("the agent editor's list of tools", () => {
  it("shows team A neither the name nor the description of an MCP tool limited to team B", async () => {
    expect(tk.kernel.deps.registry.get("fake__hello")).toBeDefined();
    for (const actor of [p.alphaOperator, p.alphaViewer]) {
      const tools = await toolsOf(actor);
      expect(tools.map((t) => t.name)).not.toContain("fake__hello");
      expect(JSON.stringify(tools)).not.toContain("Says hello to someone");
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["fake__probe", "fake__fails", "shell"]));
    }
  });

  it("shows it to team B and to admins", async () => {
    expect(await namesOf(p.betaOperator)).toEqual(expect.arrayContaining(["fake__hello", "fake__fails"]));
    expect(await namesOf(p.betaOperator)).not.toContain("fake__probe");
    expect(await namesOf(p.admin)).toEqual(expect.arrayContaining(["fake__hello", "fake__probe", "fake__fails"]));
  });

  it("follows the admin's scope as it changes", async () => {
    await mcp.setTool(p.admin, "fake", "hello", { allowedTeams: [p.betaId, p.alphaId] });
    expect(await namesOf(p.alphaViewer)).toContain("fake__hello");
    await mcp.setTool(p.admin, "fake", "hello", { allowedTeams: [p.betaId] });
    expect(await namesOf(p.alphaViewer)).not.toContain("fake__hello");
  });
});
