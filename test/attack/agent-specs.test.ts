// Attack suite: agent specs (docs/security.md#the-attack-suite). A member of team B
// cannot read, run, try, save, roll back, archive, copy or overwrite team A's
// agent by name, through tRPC or REST; an agent cannot hand off to another
// team's agent; hostile YAML (huge, deeply nested, alias bombs) is refused
// before it is expanded.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callerFor, testServices } from "@/test/helpers/services";
import { createRestHandler } from "@/server/channels";
import { createApiToken, type Actor } from "@/server/identity";
import { createRun } from "@/server/kernel";
import { agentDepsOf, importAgentYaml } from "@/server/agents";
import { createTestKernel, type TestKernel } from "../helpers/kernel";
import { agentPeople, specFor, type AgentPeople } from "../helpers/agents";
import { trpcError } from "../helpers/trpc";

let tk: TestKernel;
let p: AgentPeople;
let server: http.Server;
let base: string;
let betaToken: string;
const SECRET_INSTRUCTIONS = "Team A's private playbook: rotate the vault keys first.";

const caller = (actor: Actor) => callerFor(tk, actor);
/** What must not change: A's agent's versions and state, the runs, and the draft rows. */
const snapshot = async () => ({
  specs: await tk.t.db.agentSpec.findMany({ where: { name: "vault-keeper" }, orderBy: { version: "asc" } }),
  agent: await tk.t.db.agent.findUnique({ where: { name: "vault-keeper" } }),
  runs: await tk.t.db.run.count(),
  agents: await tk.t.db.agent.count(),
});

beforeAll(async () => {
  tk = await createTestKernel();
  p = await agentPeople(tk);
  await caller(p.alphaOperator).agents.create({ spec: specFor(p.alphaId, { name: "vault-keeper", instructions: SECRET_INSTRUCTIONS }) });
  betaToken = (await createApiToken(tk.t.db, { userId: p.betaOperator.userId, name: "beta" })).token;
  const handler = createRestHandler(testServices(tk), { authSecret: "test-secret" });
  server = http.createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await new Promise((r) => server?.close(r));
  await tk?.cleanup();
});

describe("another team's agent, by name", () => {
  it("through tRPC: nothing to read, run, try, save, roll back, archive, copy or import over", async () => {
    const before = await snapshot();
    const beta = caller(p.betaOperator);
    expect((await beta.agents.list({ includeArchived: true })).map((a) => a.name)).not.toContain("vault-keeper");
    const reads: Array<[string, Promise<unknown>]> = [
      ["get", beta.agents.get({ name: "vault-keeper" })],
      ["get v1", beta.agents.get({ name: "vault-keeper", version: 1 })],
      ["versions", beta.agents.versions({ name: "vault-keeper" })],
      ["diff", beta.agents.diff({ name: "vault-keeper", from: 1, to: 1 })],
      ["exportYaml", beta.agents.exportYaml({ name: "vault-keeper" })],
      ["save", beta.agents.save({ name: "vault-keeper", spec: specFor(p.betaId, { name: "vault-keeper" }) })],
      ["rollback", beta.agents.rollback({ name: "vault-keeper", version: 1 })],
      ["archive", beta.agents.archive({ name: "vault-keeper" })],
      ["unarchive", beta.agents.unarchive({ name: "vault-keeper" })],
      ["copy", beta.agents.copy({ from: "vault-keeper", name: "stolen-keeper" })],
    ];
    for (const [what, call] of reads) {
      const err = await trpcError(call);
      expect(err.code, what).toBe("NOT_FOUND");
      expect(err.message, what).toBe("There is no agent named vault-keeper");
    }
    const run = await trpcError(beta.runs.create({ goal: "Leak it", agent: "vault-keeper" }));
    expect(run.code).toBe("BAD_REQUEST");
    expect(run.message.split("Available agents: ")[1]).not.toContain("vault-keeper");
    const draft = await trpcError(
      beta.agents.tryDraft({ spec: specFor(p.betaId, { name: "vault-keeper", instructions: "Mine now." }), goal: "g" }),
    );
    expect(draft.message).toContain('The name "vault-keeper" is taken');
    const imported = await trpcError(
      beta.agents.importYaml({ yaml: `name: vault-keeper\nmodel: scripted/demo-coder\ninstructions: Mine now.\nteamId: ${p.betaId}\n` }),
    );
    expect(imported.message).toContain('The name "vault-keeper" is taken');
    const created = await trpcError(beta.agents.create({ spec: specFor(p.betaId, { name: "vault-keeper" }) }));
    expect(created.message).toContain('The name "vault-keeper" is taken');
    for (const err of [run, draft, imported, created]) expect(JSON.stringify(err)).not.toContain("private playbook");
    expect(await snapshot()).toEqual(before);
  });

  it("through REST: 404 for every read and change, 400 for a run, nothing changes", async () => {
    const before = await snapshot();
    const rest = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${betaToken}`, "content-type": "application/json" },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, text: await res.text() };
    };
    const list = await rest("GET", "/api/v1/agents?includeArchived=true");
    expect(list.status).toBe(200);
    expect(list.text).not.toContain("vault-keeper");
    for (const [method, path, body] of [
      ["GET", "/api/v1/agents/vault-keeper"],
      ["GET", "/api/v1/agents/vault-keeper/versions"],
      ["GET", "/api/v1/agents/vault-keeper/versions/1"],
      ["GET", "/api/v1/agents/vault-keeper/diff?from=1&to=1"],
      ["GET", "/api/v1/agents/vault-keeper/export"],
      ["PUT", "/api/v1/agents/vault-keeper", { spec: specFor(p.betaId, { name: "vault-keeper" }) }],
      ["POST", "/api/v1/agents/vault-keeper/rollback", { version: 1 }],
      ["POST", "/api/v1/agents/vault-keeper/archive"],
      ["POST", "/api/v1/agents/vault-keeper/unarchive"],
      ["POST", "/api/v1/agents/vault-keeper/copy", { name: "stolen-keeper" }],
    ] as Array<[string, string, unknown?]>) {
      const res = await rest(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.text).not.toContain("private playbook");
    }
    const run = await rest("POST", "/api/v1/runs", { goal: "Leak it", agent: "vault-keeper" });
    expect(run.status).toBe(400);
    const imported = await rest("POST", "/api/v1/agents/import", {
      yaml: `name: vault-keeper\nmodel: scripted/demo-coder\ninstructions: Mine.\nteamId: ${p.betaId}\n`,
    });
    expect(imported.status).toBe(400);
    expect(await snapshot()).toEqual(before);
  });

  it("its own team still reads and runs it", async () => {
    expect((await caller(p.alphaViewer).agents.get({ name: "vault-keeper" })).instructions).toBe(SECRET_INSTRUCTIONS);
    const run = await createRun(tk.kernel, { goal: "g", agent: "vault-keeper", scenario: [{ text: "ok" }] }, p.alphaOperator);
    expect(run.teamId).toBe(p.alphaId);
    expect(await tk.settle(run.id)).toBe("succeeded");
  });

  it("even an admin cannot launch it in another team, where that team would see its run", async () => {
    const before = await snapshot();
    const err = await trpcError(
      caller(p.admin).runs.create({ goal: "g", agent: "vault-keeper", teamId: p.betaId, scenario: [{ text: "ok" }] }),
    );
    expect(err.code).toBe("FORBIDDEN");
    expect(err.message).toBe("The agent vault-keeper belongs to another team; launch it in its own team");
    expect(await snapshot()).toEqual(before);
    // Without a team asked for, its run goes to the agent's team.
    const run = await createRun(tk.kernel, { goal: "g", agent: "vault-keeper", scenario: [{ text: "ok" }] }, p.admin);
    expect(run.teamId).toBe(p.alphaId);
    await tk.settle(run.id);
  });
});

describe("handoffs across teams", () => {
  it("team B's agent cannot hand off to team A's, nor can everyone's", async () => {
    const before = await snapshot();
    const beta = await trpcError(
      caller(p.betaOperator).agents.create({
        spec: specFor(p.betaId, { name: "beta-relay", tools: ["handoff"], handoffs: ["vault-keeper"] }),
      }),
    );
    expect(beta.code).toBe("BAD_REQUEST");
    expect(beta.message).toContain('"vault-keeper" is not an agent you can hand off to');
    // Even an admin, who sees both teams, cannot wire team B's agent to team A's.
    const admin = await trpcError(
      caller(p.admin).agents.create({ spec: specFor(p.betaId, { name: "beta-relay", tools: ["handoff"], handoffs: ["vault-keeper"] }) }),
    );
    expect(admin.message).toContain('"vault-keeper" belongs to another team');
    const everyone = await trpcError(
      caller(p.admin).agents.create({ spec: specFor(null, { name: "open-relay", tools: ["handoff"], handoffs: ["vault-keeper"] }) }),
    );
    expect(everyone.message).toContain('"vault-keeper" belongs to another team');
    expect(await snapshot()).toEqual(before);
  });
});

describe("hostile YAML", () => {
  const refused = async (yaml: string) => {
    const before = await snapshot();
    const err = await importAgentYaml(agentDepsOf(tk.kernel), { actor: p.alphaOperator, channel: "api" }, yaml).catch((e) => e);
    expect(await snapshot()).toEqual(before);
    expect(err.code).toBe("INVALID_INPUT");
    return err.message as string;
  };

  it("a file over 256 KiB is refused by its size", async () => {
    expect(await refused(`name: huge\nmodel: scripted/demo-coder\ninstructions: "${"x".repeat(300 * 1024)}"\n`)).toBe(
      "The YAML cannot be read: it is 301 KiB; at most 256 KiB are allowed",
    );
  });

  it("flow collections nested 100,000 deep are refused before parsing", async () => {
    expect(await refused(`name: deep\ninstructions: ${"[".repeat(100_000)}${"]".repeat(100_000)}\n`)).toBe(
      "The YAML cannot be read: it is nested more than 256 levels deep",
    );
  });

  it("block mappings nested 300 deep are refused", async () => {
    const lines = Array.from({ length: 300 }, (_, i) => `${" ".repeat(i)}k${i}:`).join("\n");
    expect(await refused(`name: deep\nextra:\n${lines.replace(/^/gm, " ")} end\n`)).toBe(
      "The YAML cannot be read: it is nested more than 16 levels deep",
    );
  });

  it("an alias bomb (billion laughs) is refused without expanding it", async () => {
    const bomb = [
      'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
      ...["b", "c", "d", "e", "f", "g", "h", "i"].map((k, i) => `${k}: &${k} [${Array(9).fill(`*${"abcdefgh"[i]}`).join(",")}]`),
      "name: bomb",
      "instructions: *i",
    ].join("\n");
    expect(await refused(bomb)).toBe("The YAML cannot be read: it uses too many aliases (*name) or is nested too deeply");
  });
});
