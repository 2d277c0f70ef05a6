// Attack: scopes name teams by id. A team admin can rename their own team;
// when beta is renamed and alpha takes the name "beta", alpha's runs must not
// get what an admin gave beta (a secret, an MCP tool), and beta keeps it
// under its new name.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addUser, createTeam, renameTeam } from "@/server/identity";
import { McpServers } from "@/server/mcp-client";
import { checkSecretScopes, listToolSecrets, putSecret, setSecretScope } from "@/server/secrets";
import type { ToolContext } from "@/server/tools";
import { createTestKernel, SILENT_LOG, type TestKernel } from "../helpers/kernel";
import { fakeServerConfig } from "../helpers/fake-mcp";

let tk: TestKernel;
let mcp: McpServers;
let alpha: string;
let beta: string;
const admin = () => tk.actors.admin;
const by = () => ({ actor: tk.actors.admin, channel: "test" });
const run = (teamId: string) => ({ agent: "demo-deploy", teamId, callerCommands: false });
const ctx = (teamId: string): ToolContext => ({
  runId: "r",
  workspace: null as never,
  agent: { name: "demo-mcp", handoffs: [] },
  actorId: tk.users.admin,
  teamId,
  signal: new AbortController().signal,
});

beforeAll(async () => {
  tk = await createTestKernel({ secrets: true });
  alpha = (await createTeam(tk.t.db, by(), "alpha")).id;
  beta = (await createTeam(tk.t.db, by(), "beta")).id;
  await putSecret(tk.t.db, tk.keyring!, { name: "BETA_TOKEN", value: "beta-only-value", actor: tk.users.admin });
  // The admin types the team's name; what is kept is beta's id.
  await setSecretScope(
    tk.t.db,
    { name: "BETA_TOKEN", scope: { agents: ["*"], teams: ["beta"] } },
    { userId: tk.users.admin, name: "admin", channel: "test" },
  );
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
  await mcp.add(admin(), { name: "fake", transport: "stdio", stdio: fakeServerConfig() });
  await mcp.setTool(admin(), "fake", "hello", { enabled: true, allowedAgents: ["*"], allowedTeams: ["beta"] });
  // beta → x, then alpha → "beta".
  await renameTeam(tk.t.db, by(), beta, "x");
  await renameTeam(tk.t.db, by(), alpha, "beta");
}, 60_000);
afterAll(async () => {
  await mcp?.stop();
  await tk?.cleanup();
});

describe("a team that takes another team's old name", () => {
  it("does not get that team's secret; the renamed team keeps it, shown by its new name", async () => {
    await expect(checkSecretScopes(tk.t.db, ["BETA_TOKEN"], run(alpha))).rejects.toThrow(/not allowed for team beta/);
    await expect(checkSecretScopes(tk.t.db, ["BETA_TOKEN"], run(beta))).resolves.toBeUndefined();
    const view = (await listToolSecrets(tk.t.db)).find((s) => s.name === "BETA_TOKEN")!;
    expect(view.scope.teams).toEqual([beta]);
    expect(view.teams).toEqual([{ id: beta, name: "x" }]);
  });

  it("does not get that team's MCP tool, even after the admin opens the tools page", async () => {
    const [tool] = (await mcp.tools(admin(), "fake")).filter((t) => t.name === "hello");
    expect(mcp.toolsFor({ id: "r", teamId: alpha }, { name: "demo-mcp", tools: [] })).toEqual([]);
    expect(mcp.toolsFor({ id: "r", teamId: beta }, { name: "demo-mcp", tools: [] })).toEqual(["fake__hello"]);
    const err = await tk.kernel.deps.registry
      .get("fake__hello")!
      .execute({ name: "a" }, ctx(alpha))
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "MCP_TOOL_NOT_IN_SCOPE" });
    expect(tool).toMatchObject({ allowedTeams: [beta], teams: [{ id: beta, name: "x" }] });
  });

  it("a scope naming no team is refused with a clear error, and nothing changes", async () => {
    await expect(
      setSecretScope(
        tk.t.db,
        { name: "BETA_TOKEN", scope: { agents: ["*"], teams: ["nobody-here"] } },
        { userId: tk.users.admin, name: "admin", channel: "test" },
      ),
    ).rejects.toThrow(/No team is called nobody-here/);
    await expect(mcp.setTool(admin(), "fake", "hello", { allowedTeams: ["nobody-here"] })).rejects.toThrow(/No team is called nobody-here/);
    expect((await listToolSecrets(tk.t.db)).find((s) => s.name === "BETA_TOKEN")!.scope.teams).toEqual([beta]);
  });
});

describe("the default team", () => {
  it('stays the team new people join when it is renamed and another team takes the name "default"', async () => {
    const original = await tk.t.db.team.findUniqueOrThrow({ where: { name: "default" }, select: { id: true } });
    const gamma = (await createTeam(tk.t.db, by(), "gamma")).id;
    await renameTeam(tk.t.db, by(), original.id, "main");
    await renameTeam(tk.t.db, by(), gamma, "default");
    const { id } = await addUser(tk.t.db, by(), { email: "new@rein.test", password: "password-123", role: "viewer" });
    const joined = await tk.t.db.teamMember.findMany({ where: { userId: id }, select: { teamId: true } });
    expect(joined.map((m) => m.teamId)).toEqual([original.id]);
  });
});
