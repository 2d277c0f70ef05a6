// REST v1 for MCP servers, as a program uses it: admins attach, list, read,
// change and remove servers; everyone else is refused; bad input names its
// field; unknown and duplicate names are 404 and 409; a secret a server's
// config names must exist, and its value never appears in any answer. The
// HTTP servers here point at a port nothing listens on, so no process
// starts; the demo (a real stdio server) runs where the sandbox does.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeSandbox } from "@/server/compute";
import { createApiToken } from "@/server/identity";
import { McpServers } from "@/server/mcp-client";
import { putSecret } from "@/server/secrets";
import { createTestKernel, SILENT_LOG, type TestKernel } from "@/test/helpers/kernel";
import { SHIFTED_DESCRIPTION, SHIFTY_STDIO } from "@/test/helpers/mcp";
import { startRestServer, type RestAnswer, type RestTestServer } from "@/test/helpers/rest";
import { testServices } from "@/test/helpers/services";

let tk: TestKernel;
let mcp: McpServers;
let rest: RestTestServer;
const tokens: Record<string, string> = {};
const SECRET_VALUE = "mcp-bearer-0123456789-DO-NOT-SHOW";
/** Nothing listens on the discard port: the connection is refused at once. */
const NOWHERE = "http://127.0.0.1:9/mcp";
const answers: RestAnswer[] = [];

async function call(role: string, method: string, path: string, body?: unknown) {
  const answer = await rest.call(tokens[role], method, path, body);
  answers.push(answer);
  return answer;
}

const httpServer = (name: string, headers: Record<string, unknown> = {}) => ({ name, transport: "http", http: { url: NOWHERE, headers } });

beforeAll(async () => {
  tk = await createTestKernel({ secrets: true });
  await putSecret(tk.t.db, tk.keyring!, { name: "MCP_TOKEN", value: SECRET_VALUE, actor: null });
  mcp = new McpServers({
    db: tk.t.db,
    registry: tk.kernel.deps.registry,
    dataDir: tk.t.dir,
    keyring: tk.keyring,
    secrets: tk.kernel.secrets?.redactor,
    log: SILENT_LOG,
    connectTimeoutMs: 10_000,
  });
  await mcp.start();
  for (const role of ["admin", "approver", "operator", "viewer"] as const)
    tokens[role] = (await createApiToken(tk.t.db, { userId: tk.users[role], name: role })).token;
  rest = await startRestServer(testServices(tk, { mcp }));
}, 60_000);

afterAll(async () => {
  await rest?.close();
  await mcp?.stop();
  await tk?.cleanup();
});

describe("/api/v1/mcp-servers", () => {
  it("an admin adds, lists, reads, changes and removes a server; the secret it names is shown by name only", async () => {
    const added = await call(
      "admin",
      "POST",
      "/api/v1/mcp-servers",
      httpServer("tickets", { Authorization: { secret: "MCP_TOKEN" }, "X-Team": { value: "support" } }),
    );
    expect(added.status).toBe(201);
    expect(added.json).toMatchObject({ name: "tickets", transport: "http", enabled: true, health: "failed", toolCount: 0 });
    expect(added.json.config.http.headers).toEqual({ Authorization: { secret: "MCP_TOKEN" }, "X-Team": { value: "support" } });

    const listed = await call("admin", "GET", "/api/v1/mcp-servers");
    expect(listed.status).toBe(200);
    expect(listed.json.servers.map((s: { name: string }) => s.name)).toEqual(["tickets"]);
    expect(listed.json.budget).toMatchObject({ tokens: 12_000, default: 12_000 });

    const one = await call("admin", "GET", "/api/v1/mcp-servers/tickets");
    expect(one.status).toBe(200);
    expect(one.json.tools).toEqual([]);
    expect((await call("admin", "GET", "/api/v1/mcp-servers/tickets/tools")).json).toEqual({ tools: [] });

    const off = await call("admin", "PATCH", "/api/v1/mcp-servers/tickets", { enabled: false, callTimeoutSec: 120 });
    expect(off.status).toBe(200);
    expect(off.json).toMatchObject({
      enabled: false,
      health: "stopped",
      reason: "Turned off by an admin",
      config: { callTimeoutSec: 120 },
    });
    expect((await call("admin", "POST", "/api/v1/mcp-servers/tickets/test")).status).toBe(409);

    const audit = await tk.t.db.auditEntry.findMany({ where: { subject: "tickets" }, orderBy: { at: "asc" } });
    expect(audit.map((a) => [a.kind, a.channel])).toEqual([
      ["mcp.server.added", "api"],
      ["mcp.server.updated", "api"],
    ]);

    expect((await call("admin", "DELETE", "/api/v1/mcp-servers/tickets")).json).toEqual({ ok: true });
    expect((await call("admin", "GET", "/api/v1/mcp-servers")).json.servers).toEqual([]);
    expect((await call("admin", "GET", "/api/v1/mcp-servers/tickets")).status).toBe(404);
  });

  it("refuses every other role with 403 and changes nothing", async () => {
    for (const role of ["approver", "operator", "viewer"]) {
      for (const [method, path, body] of [
        ["GET", "/api/v1/mcp-servers"],
        ["POST", "/api/v1/mcp-servers", httpServer("sneaky")],
        ["POST", "/api/v1/mcp-servers/demo"],
        ["PUT", "/api/v1/mcp-servers/token-budget", { tokens: 900 }],
      ] as Array<[string, string, unknown?]>) {
        const answer = await call(role, method, path, body);
        expect(answer.status, `${role} ${method} ${path}`).toBe(403);
        expect(answer.json.error.code).toBe("FORBIDDEN");
      }
    }
    expect(await tk.t.db.mcpServer.count()).toBe(0);
  });

  it("bad input is a 400 that names each field, and nothing is stored", async () => {
    const bad = await call("admin", "POST", "/api/v1/mcp-servers", {
      name: "Bad Name",
      transport: "stdio",
      stdio: { command: "bash", env: { PATH: { value: "/tmp" } } },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe("INVALID_INPUT");
    expect(bad.json.error.issues.map((i: { path: string }) => i.path).sort()).toEqual(["name", "stdio.command", "stdio.env.PATH"]);
    const transport = await call("admin", "POST", "/api/v1/mcp-servers", { name: "x", transport: "carrier-pigeon" });
    expect(transport.status).toBe(400);
    expect(transport.json.error.message).toMatch(/transport is "stdio" or "http"/);
    const url = await call("admin", "POST", "/api/v1/mcp-servers", {
      name: "x",
      transport: "http",
      http: { url: "https://user:pw@example.com/mcp" },
    });
    expect(url.json.error.issues).toEqual([{ path: "http.url", message: expect.stringMatching(/without a user name or password/) }]);
    expect((await call("admin", "PUT", "/api/v1/mcp-servers/token-budget", { tokens: 10 })).status).toBe(400);
    expect((await call("admin", "PUT", "/api/v1/mcp-servers/token-budget", { tokens: "lots" })).status).toBe(400);
    expect(await tk.t.db.mcpServer.count()).toBe(0);
  });

  it("a secret that does not exist is a 400 naming it; a duplicate name is a 409; an unknown server or tool a 404", async () => {
    const missing = await call("admin", "POST", "/api/v1/mcp-servers", httpServer("crm", { Authorization: { secret: "NO_SUCH_SECRET" } }));
    expect(missing.status).toBe(400);
    expect(missing.json.error.message).toMatch(/No secret is called NO_SUCH_SECRET/);
    expect(await tk.t.db.mcpServer.count()).toBe(0);

    expect((await call("admin", "POST", "/api/v1/mcp-servers", httpServer("crm"))).status).toBe(201);
    const twice = await call("admin", "POST", "/api/v1/mcp-servers", httpServer("crm"));
    expect(twice.status).toBe(409);
    expect(twice.json.error.message).toBe("There is already an MCP server named crm");
    const stdioForHttp = await call("admin", "PATCH", "/api/v1/mcp-servers/crm", { stdio: { command: "node" } });
    expect(stdioForHttp.status).toBe(400);

    for (const [method, path, body] of [
      ["GET", "/api/v1/mcp-servers/nobody"],
      ["PATCH", "/api/v1/mcp-servers/nobody", { enabled: false }],
      ["DELETE", "/api/v1/mcp-servers/nobody"],
      ["POST", "/api/v1/mcp-servers/nobody/test"],
      ["GET", "/api/v1/mcp-servers/nobody/tools"],
      ["PATCH", "/api/v1/mcp-servers/crm/tools/no-such-tool", { enabled: true }],
      ["POST", "/api/v1/mcp-servers/crm/tools/no-such-tool/review", { accept: true }],
    ] as Array<[string, string, unknown?]>) {
      expect((await call("admin", method, path, body)).status, `${method} ${path}`).toBe(404);
    }
    expect((await call("admin", "POST", "/api/v1/mcp-servers/crm/tools/x/review", { accept: "yes" })).status).toBe(400);
    expect((await call("admin", "DELETE", "/api/v1/mcp-servers/crm")).status).toBe(200);
  });

  it("sets the token budget", async () => {
    expect((await call("admin", "PUT", "/api/v1/mcp-servers/token-budget", { tokens: 8000 })).json).toEqual({ tokens: 8000 });
    expect((await call("admin", "GET", "/api/v1/mcp-servers")).json.budget.tokens).toBe(8000);
  });

  it.skipIf(!probeSandbox().ok)(
    "the demo starts in the sandbox and lists its tools, all off; one is turned on for an agent",
    async () => {
      const demo = await call("admin", "POST", "/api/v1/mcp-servers/demo");
      expect(demo.status).toBe(201);
      expect(demo.json).toMatchObject({ name: "everything", transport: "stdio", health: "ready" });
      const names = demo.json.tools.map((t: { name: string }) => t.name);
      expect(names).toEqual(expect.arrayContaining(["echo", "get-sum", "trigger-long-running-operation"]));
      expect(demo.json.tools.every((t: { state: string }) => t.state === "disabled")).toBe(true);
      const echo = await call("admin", "PATCH", "/api/v1/mcp-servers/everything/tools/echo", {
        enabled: true,
        allowedAgents: ["demo-mcp"],
        allowedTeams: ["*"],
      });
      expect(echo.status).toBe(200);
      expect(echo.json).toMatchObject({
        state: "enabled",
        live: true,
        exposedName: "everything__echo",
        policyName: "mcp:everything/echo",
        allowedAgents: ["demo-mcp"],
        allowedTeams: ["*"],
      });
      const noSuchTeam = await call("admin", "PATCH", "/api/v1/mcp-servers/everything/tools/echo", { allowedTeams: ["no-such-team"] });
      expect(noSuchTeam.status).toBe(400);
      expect((await call("admin", "POST", "/api/v1/mcp-servers/everything/tools/echo/review", { accept: true })).status).toBe(409);
      expect((await call("admin", "POST", "/api/v1/mcp-servers/demo")).status).toBe(409);
      expect((await call("admin", "DELETE", "/api/v1/mcp-servers/everything")).status).toBe(200);
    },
    60_000,
  );

  it.skipIf(!probeSandbox().ok)(
    "a tool whose definition changed is off until reviewed; accepting pins the new one",
    async () => {
      const added = await call("admin", "POST", "/api/v1/mcp-servers", { name: "shifty", transport: "stdio", stdio: SHIFTY_STDIO });
      expect(added.json).toMatchObject({
        health: "ready",
        info: { name: "shifty", version: "1.0.0", protocolVersion: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) },
      });
      expect((await call("admin", "PATCH", "/api/v1/mcp-servers/shifty/tools/lookup", { enabled: true })).json).toMatchObject({
        state: "enabled",
        live: true,
        replayClass: "pure",
      });

      // The server starts again and describes lookup differently: it is taken off at once.
      const restarted = await call("admin", "POST", "/api/v1/mcp-servers/shifty/test");
      expect(restarted.json).toMatchObject({ health: "ready", changedCount: 1, enabledCount: 0 });
      const [lookup] = restarted.json.tools;
      expect(lookup).toMatchObject({
        state: "changed",
        live: false,
        description: "Look up a customer by id",
        change: { definition: { description: SHIFTED_DESCRIPTION }, pinned: { description: "Look up a customer by id" } },
      });
      expect(await mcp.pendingReviews()).toBe(1);
      expect((await call("admin", "PATCH", "/api/v1/mcp-servers/shifty/tools/lookup", { enabled: true })).status).toBe(409);
      expect((await call("operator", "POST", "/api/v1/mcp-servers/shifty/tools/lookup/review", { accept: true })).status).toBe(403);

      const accepted = await call("admin", "POST", "/api/v1/mcp-servers/shifty/tools/lookup/review", { accept: true });
      expect(accepted.json).toMatchObject({ state: "enabled", live: true, description: SHIFTED_DESCRIPTION, change: null });
      expect((await call("admin", "POST", "/api/v1/mcp-servers/shifty/tools/lookup/review", { accept: false })).status).toBe(409);
      expect(await mcp.pendingReviews()).toBe(0);
      const audit = await tk.t.db.auditEntry.findMany({ where: { subject: "mcp:shifty/lookup" }, orderBy: { at: "asc" } });
      expect(audit.map((a) => a.kind)).toEqual(["mcp.tool.updated", "mcp.tool.changed", "mcp.tool.approved"]);
      expect((await call("admin", "DELETE", "/api/v1/mcp-servers/shifty")).status).toBe(200);
    },
    60_000,
  );

  it("no answer ever held the secret's value", () => {
    expect(answers.length).toBeGreaterThan(25);
    for (const a of answers) expect(a.text).not.toContain(SECRET_VALUE);
  });
});
