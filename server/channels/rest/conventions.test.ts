// The conventions of REST v1 (docs/api.md#conventions) on a real HTTP server:
// things people name are taken by id or by name, but a name is looked up only
// among what the caller can see; creates answer 201 with the thing made; and
// the description keeps one shape for pages and one word for each idea.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "@/server/identity";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { startRestServer, type RestTestServer } from "@/test/helpers/rest";
import { openApi } from "./index";
import { testServices } from "@/test/helpers/services";

let tk: TestKernel;
let rest: RestTestServer;
const tokens: Record<string, string> = {};
const api = (method: string, path: string, body?: unknown, as = "admin") => rest.call(tokens[as], method, path, body);

beforeAll(async () => {
  tk = await createTestKernel();
  for (const role of ["admin", "operator"] as const)
    tokens[role] = (await createApiToken(tk.t.db, { userId: tk.users[role], name: "conventions" })).token;
  rest = await startRestServer(testServices(tk));
}, 60_000);

afterAll(async () => {
  await rest?.close();
  await tk.cleanup();
});

describe("REST v1 conventions", () => {
  it("a create answers 201 with the thing it made, and a team is then found by its name as by its id", async () => {
    const team = await api("POST", "/api/v1/teams", { name: "Payments" });
    expect(team.status).toBe(201);
    expect(team.json).toMatchObject({ name: "Payments", members: [] });
    const byName = await api("GET", "/api/v1/teams/Payments");
    expect(byName.status).toBe(200);
    expect(byName.json.id).toBe(team.json.id);

    const person = await api("POST", "/api/v1/users", { email: "Pat@Test.Local", password: "password-123", role: "viewer" });
    expect(person.status).toBe(201);
    expect(person.json).toMatchObject({ email: "pat@test.local", role: "viewer" });

    const member = await api("POST", "/api/v1/teams/Payments/members", { email: "pat@test.local", role: "operator" });
    expect(member.status).toBe(201);
    expect(member.json).toMatchObject({ userId: person.json.id, role: "operator" });
    // A person by e-mail where the path names them.
    const changed = await api("PATCH", "/api/v1/teams/Payments/members/pat@test.local", { role: "approver" });
    expect(changed.status, changed.text).toBe(200);
    expect((await api("GET", `/api/v1/teams/${team.json.id}/members`)).json.members[0]).toMatchObject({
      email: "pat@test.local",
      role: "approver",
    });
  });

  it("a teamId may be the team's name, and the run stores the team's id", async () => {
    const team = await api("POST", "/api/v1/teams", { name: "Launchers" });
    await api("POST", "/api/v1/teams/Launchers/members", { email: "operator@test.local", role: "operator" });
    const run = await api("POST", "/api/v1/runs", { goal: "Say hi", agent: "demo-coder", teamId: "Launchers" }, "operator");
    expect(run.status, run.text).toBe(201);
    expect(run.json.teamId).toBe(team.json.id);
    expect(run.json.team).toEqual({ id: team.json.id, name: "Launchers" });
    await tk.kernel.pool.whenIdle();
  });

  it("a dataset is found by its name, and an experiment takes it by name", async () => {
    const created = await api("POST", "/api/v1/datasets", {
      name: "convention-set",
      scoring: { scorers: [{ kind: "outcome" }] },
    });
    expect(created.status, created.text).toBe(201);
    const byName = await api("GET", "/api/v1/datasets/convention-set", undefined, "operator");
    expect(byName.status).toBe(200);
    expect(byName.json.id).toBe(created.json.id);
    const listed = await api("GET", "/api/v1/experiments?datasetId=convention-set", undefined, "operator");
    expect(listed.status, listed.text).toBe(200);
  });

  it("a name is looked up only among what the caller can see: another team's name answers as an unknown id does", async () => {
    await api("POST", "/api/v1/teams", { name: "Hidden Team" });
    const byName = await api("GET", "/api/v1/teams/Hidden%20Team", undefined, "operator");
    const unknown = await api("GET", "/api/v1/teams/no-such-team", undefined, "operator");
    expect(byName.status).toBe(unknown.status);
    expect(byName.json.error.code).toBe(unknown.json.error.code);
    expect(byName.json.error.message).toBe(unknown.json.error.message.replace("no-such-team", "Hidden Team"));
    const hidden = await api("POST", "/api/v1/runs", { goal: "Say hi", agent: "demo-coder", teamId: "Hidden Team" }, "operator");
    const nowhere = await api("POST", "/api/v1/runs", { goal: "Say hi", agent: "demo-coder", teamId: "no-such-team" }, "operator");
    expect(hidden.status).toBe(nowhere.status);
    expect(hidden.json.error.code).toBe(nowhere.json.error.code);
  });
});

describe("the description's conventions", () => {
  type Op = {
    parameters?: Array<{ name: string; in: string }>;
    responses: Record<string, { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> }>;
  };
  const ops = Object.entries(openApi().paths as Record<string, Record<string, Op>>).flatMap(([path, byMethod]) =>
    Object.entries(byMethod).map(([method, op]) => ({ where: `${method.toUpperCase()} ${path}`, method, path, op })),
  );
  const answer = (op: Op) => Object.entries(op.responses).find(([s]) => s.startsWith("2"))!;

  it("a page of a list takes limit and cursor and answers nextCursor beside its list", () => {
    const problems: string[] = [];
    for (const { where, op } of ops) {
      const query = (op.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);
      const properties = Object.keys(answer(op)[1].content?.["application/json"]?.schema?.properties ?? {});
      const paged = query.includes("cursor") || properties.includes("nextCursor");
      if (query.some((q) => ["before", "after", "page", "offset"].includes(q)) && !where.endsWith("/events"))
        problems.push(`${where} pages with ${query.join(",")}: use cursor`);
      if (properties.some((p) => ["next", "next_cursor", "cursorNext"].includes(p)))
        problems.push(`${where} answers ${properties}: use nextCursor`);
      if (paged && !(query.includes("cursor") && query.includes("limit") && properties.includes("nextCursor")))
        problems.push(`${where} is a page but lacks limit, cursor or nextCursor`);
      if (properties.includes("items") && !where.includes("/datasets/"))
        problems.push(`${where} answers items: name the list after what it holds`);
    }
    expect(problems).toEqual([]);
  });

  it("creates answer 201; a POST that may also replace what is there answers 200", () => {
    const creates = ops.filter(
      ({ method, op }) =>
        method === "post" &&
        /^(Create|Add|Invite|Register|Launch)\b/.test((op as { summary?: string }).summary ?? "") &&
        !/\bor (save|replace|update)\b/.test((op as { summary?: string }).summary ?? ""),
    );
    expect(creates.length).toBeGreaterThan(8);
    expect(creates.filter(({ op }) => answer(op)[0] !== "201").map((c) => c.where)).toEqual([]);
  });
});
