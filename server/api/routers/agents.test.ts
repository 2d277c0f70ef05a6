// agents.* through createCaller on a real SQLite database
// (docs/agents.md#who-may-do-what): each procedure by role: viewers read,
// operators change their team's agents, admins everyone's; refusals change
// nothing. Over HTTP a spec's problems reach the form by field
// (error.data.issues).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SILENT_LOG, createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { agentPeople, specFor, type AgentPeople } from "@/test/helpers/agents";
import { trpcError } from "@/test/helpers/trpc";
import { createApiToken, type Actor } from "@/server/identity";
import { McpServers } from "@/server/mcp-client";
import { callerFor, testServices } from "@/test/helpers/services";
import { createTrpcHandler } from "../http";

let tk: TestKernel;
let p: AgentPeople;
/** No server attached: agents.tools lists the built-in tools alone. */
let mcp: McpServers;

const caller = (actor: Actor | null) => callerFor(tk, actor, { mcp });
const counts = async () => ({
  agents: await tk.t.db.agent.count(),
  specs: await tk.t.db.agentSpec.count(),
  runs: await tk.t.db.run.count(),
  audit: await tk.t.db.auditEntry.count(),
});

beforeAll(async () => {
  tk = await createTestKernel();
  mcp = new McpServers({ db: tk.t.db, registry: tk.kernel.deps.registry, dataDir: tk.t.dir, log: SILENT_LOG });
  p = await agentPeople(tk);
  await caller(p.alphaOperator).agents.create({ spec: specFor(p.alphaId, { name: "team-bot" }) });
}, 60_000);

afterAll(async () => {
  await tk?.cleanup();
});

describe("agents router", () => {
  it("viewers list, get, see versions, diff, tools, validate and export", async () => {
    const viewer = caller(p.alphaViewer);
    expect((await viewer.agents.list()).map((a) => a.name)).toContain("team-bot");
    expect(await viewer.agents.get({ name: "team-bot" })).toMatchObject({ name: "team-bot", version: 1, team: { name: "alpha" } });
    expect(await viewer.agents.versions({ name: "team-bot" })).toMatchObject([{ version: 1, createdBy: p.alphaOperator.name }]);
    expect(await viewer.agents.diff({ name: "team-bot", from: 1, to: 1 })).toEqual({
      changes: [],
      instructions: [{ kind: "same", text: "Help with the task." }],
    });
    const tools = await viewer.agents.tools();
    expect(tools.find((t) => t.name === "read_file")).toMatchObject({ replayClass: expect.any(String), description: expect.any(String) });
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["shell", "handoff", "ask_human", "browser_click"]));
    // The viewer is told, too, that they could not publish it.
    expect(await viewer.agents.validate({ spec: specFor(p.alphaId, { name: "team-bot", tools: ["nope"] }) })).toEqual({
      problems: [
        { field: "tools.0", message: 'The tool "nope" does not exist' },
        { field: "teamId", message: "Publishing an agent to alpha needs the operator role there" },
      ],
    });
    expect((await viewer.agents.exportYaml({ name: "team-bot" })).filename).toBe("team-bot.agent.yaml");
  });

  it("viewers change nothing: every change is FORBIDDEN", async () => {
    const before = await counts();
    const viewer = caller(p.alphaViewer);
    const calls: Array<Promise<unknown>> = [
      viewer.agents.create({ spec: specFor(p.alphaId, { name: "viewer-bot" }) }),
      viewer.agents.save({ name: "team-bot", spec: specFor(p.alphaId, { name: "team-bot" }) }),
      viewer.agents.rollback({ name: "team-bot", version: 1 }),
      viewer.agents.archive({ name: "team-bot" }),
      viewer.agents.unarchive({ name: "team-bot" }),
      viewer.agents.copy({ from: "team-bot", name: "viewer-copy" }),
      viewer.agents.tryDraft({ spec: specFor(p.alphaId, { name: "team-bot" }), goal: "g" }),
      viewer.agents.importYaml({ yaml: "name: viewer-bot\n" }),
    ];
    for (const call of calls) expect((await trpcError(call)).code).toBe("FORBIDDEN");
    expect(await counts()).toEqual(before);
  });

  it("an operator of the team creates, saves, rolls back, archives, copies, imports and tries drafts", async () => {
    const op = caller(p.alphaOperator);
    expect((await op.agents.create({ spec: specFor(p.alphaId, { name: "op-bot" }), changeNote: "New" })).version).toBe(1);
    expect(
      (
        await op.agents.save({
          name: "op-bot",
          spec: specFor(p.alphaId, { name: "op-bot", description: "v2" }),
          changeNote: "Two",
          baseVersion: 1,
        })
      ).version,
    ).toBe(2);
    expect((await trpcError(op.agents.save({ name: "op-bot", spec: specFor(p.alphaId, { name: "op-bot" }), baseVersion: 1 }))).code).toBe(
      "CONFLICT",
    );
    expect((await op.agents.rollback({ name: "op-bot", version: 1 })).changeNote).toBe("Rolled back to version 1");
    expect(await op.agents.archive({ name: "op-bot" })).toEqual({ ok: true });
    expect(await op.agents.unarchive({ name: "op-bot" })).toEqual({ ok: true });
    expect(await op.agents.copy({ from: "demo-coder", name: "op-coder" })).toMatchObject({ version: 1, team: { id: p.alphaId } });
    const { yaml } = await op.agents.exportYaml({ name: "op-bot" });
    expect((await op.agents.importYaml({ yaml, changeNote: "Re-imported" })).version).toBe(4);
    const run = await op.agents.tryDraft({ spec: specFor(p.alphaId, { name: "op-bot", tools: [] }), goal: "Try it" });
    expect(run).toMatchObject({ agentName: "op-bot", agentVersion: -1, agentDraft: true, createdBy: { id: p.alphaOperator.userId } });
    await tk.settle(run.id);
  });

  it("an operator cannot publish to everyone or to a team they are not in; an admin can", async () => {
    const before = await counts();
    const everyone = await trpcError(caller(p.alphaOperator).agents.create({ spec: specFor(null, { name: "global-bot" }) }));
    expect(everyone.code).toBe("BAD_REQUEST");
    expect(everyone.message).toContain("Only an admin can share an agent with everyone");
    const other = await trpcError(caller(p.alphaOperator).agents.create({ spec: specFor(p.betaId, { name: "global-bot" }) }));
    expect(other.message).toContain("Pick one of your teams");
    expect(await counts()).toEqual(before);
    expect(await caller(p.admin).agents.create({ spec: specFor(null, { name: "global-bot" }) })).toMatchObject({ team: null });
    // Everyone's agent is an admin's to change.
    const save = await trpcError(caller(p.alphaOperator).agents.save({ name: "global-bot", spec: specFor(null, { name: "global-bot" }) }));
    expect(save.code).toBe("FORBIDDEN");
    expect(save.message).toBe("Changing global-bot needs an admin: everyone sees it");
    expect((await trpcError(caller(p.alphaOperator).agents.archive({ name: "global-bot" }))).code).toBe("FORBIDDEN");
  });

  it("moving an agent to another team needs the operator role in both", async () => {
    const admin = caller(p.admin);
    await admin.agents.create({ spec: specFor(p.alphaId, { name: "mover" }) });
    const refused = await trpcError(caller(p.alphaOperator).agents.save({ name: "mover", spec: specFor(p.betaId, { name: "mover" }) }));
    expect(refused.code).toBe("BAD_REQUEST");
    expect(refused.message).toContain("Pick one of your teams");
    const moved = await admin.agents.save({ name: "mover", spec: specFor(p.betaId, { name: "mover" }), changeNote: "To beta" });
    expect(moved.team?.id).toBe(p.betaId);
    expect((await trpcError(caller(p.alphaOperator).agents.get({ name: "mover" }))).code).toBe("NOT_FOUND");
    expect((await caller(p.betaOperator).agents.get({ name: "mover" })).version).toBe(2);
  });

  it("anonymous callers are refused before anything else", async () => {
    expect((await trpcError(caller(null).agents.list())).code).toBe("UNAUTHORIZED");
    expect((await trpcError(caller(null).agents.create({ spec: specFor(p.alphaId) }))).code).toBe("UNAUTHORIZED");
  });

  it("over HTTP, a spec's problems come back by field in error.data.issues", async () => {
    const handler = createTrpcHandler(testServices(tk), { authSecret: "test-secret" });
    const server = http.createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const token = (await createApiToken(tk.t.db, { userId: p.alphaOperator.userId, name: "http" })).token;
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/trpc/agents.create`;
      const res = await fetch(url, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ json: { spec: specFor(p.alphaId, { name: "http-bot", tools: ["foo"], guardrails: { callCap: 70 } }) } }),
      });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { json: { message: string; data: { code: string; issues: unknown } } } };
      expect(body.error.json.data.code).toBe("BAD_REQUEST");
      expect(body.error.json.data.issues).toEqual([
        { path: "tools.0", message: 'The tool "foo" does not exist' },
        { path: "guardrails.callCap", message: "The call cap over 50 needs a cost ceiling" },
      ]);
      expect(body.error.json.message).toBe(
        'The agent spec has 2 problems: The tool "foo" does not exist; The call cap over 50 needs a cost ceiling',
      );
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
