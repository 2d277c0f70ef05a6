// REST v1 skills on a real HTTP server: writing a SKILL.md (the name must be
// the path's), the library and one skill, switching one off and on by role
// (the same rules as the Skills page), and bad input as a clear 4xx that
// stores nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { createApiToken, type Role } from "@/server/identity";
import { SkillLibrary } from "@/server/improve";
import { startRestServer, type RestTestServer } from "@/test/helpers/rest";
import { testServices } from "@/test/helpers/services";

let tk: TestKernel;
let rest: RestTestServer;
const tokens = new Map<Role, string>();

/** The typed client as the CLI, with this role's token. */
const as = (role: Role) => rest.client(tokens.get(role)!, "cli");
/** A raw request, for bodies the contract forbids. */
const api = (role: Role, method: string, path: string, body?: unknown) =>
  rest.call(tokens.get(role)!, method, path, body, { "x-rein-channel": "cli" });
const skill = (name: string) => ({ params: { path: { name } } });
const versions = async () =>
  (
    await tk.t.db.improvement.findMany({
      where: { kind: "skill" },
      select: { name: true, version: true, state: true },
      orderBy: [{ name: "asc" }, { version: "asc" }],
    })
  ).map((r) => `${r.name} v${r.version} ${r.state}`);

const skillMd = (name: string, body = "Split on commas outside quotes; a doubled quote inside quotes is one quote.") => `---
name: ${name}
description: Read CSV files whose fields hold quoted commas; use it when a column sum comes out wrong.
tags: [csv]
triggers:
  should: ["Sum the amount column of sales.csv"]
  shouldNot: ["Write a haiku"]
---
${body}
`;

beforeAll(async () => {
  tk = await createTestKernel();
  for (const role of ["viewer", "operator", "approver", "admin"] as const)
    tokens.set(role, (await createApiToken(tk.t.db, { userId: tk.actors[role].userId, name: "rest" })).token);
  // The library over the database alone: no runtime caches it for runs here.
  rest = await startRestServer(testServices(tk, { improve: { skills: new SkillLibrary({ db: tk.t.db }) } }));
}, 60_000);

afterAll(async () => {
  await rest?.close();
  await tk?.cleanup();
});

describe("REST v1 skills", () => {
  it("saves versions, lists the library and shows one skill", async () => {
    const empty = await as("viewer").GET("/api/v1/skills");
    expect(empty.response.status).toBe(200);
    expect(empty.data!.skills).toEqual([]);

    const v1 = await as("admin").PUT("/api/v1/skills/{name}", { ...skill("quoted-csv"), body: { text: skillMd("quoted-csv") } });
    expect(v1.response.status, JSON.stringify(v1.error)).toBe(200);
    expect(v1.data!.current).toMatchObject({ version: 1, state: "active", tags: ["csv"], scope: { agents: [], teams: [] } });
    const v2 = await as("admin").PUT("/api/v1/skills/{name}", {
      ...skill("quoted-csv"),
      body: { text: skillMd("quoted-csv", "Use a CSV parser, not awk -F,.") },
    });
    expect(v2.response.status, JSON.stringify(v2.error)).toBe(200);
    expect(v2.data!.current.version).toBe(2);
    expect(v2.data!.versions.map((v) => `${v.version} ${v.state}`)).toEqual(["2 active", "1 superseded"]);
    expect(v2.data!.current.source).toContain("Use a CSV parser");

    const list = (await as("viewer").GET("/api/v1/skills")).data!;
    expect(list.skills).toHaveLength(1);
    expect(list.skills[0]).toMatchObject({
      name: "quoted-csv",
      version: 2,
      state: "active",
      versions: 2,
      useCount: 0,
      omittedRuns: 0,
      loaded: { runs: 0, successRate: null },
    });
    expect((await as("viewer").GET("/api/v1/skills/{name}", skill("quoted-csv"))).data!.name).toBe("quoted-csv");

    const audit = await tk.t.db.auditEntry.findMany({ where: { kind: "skill.saved" }, select: { channel: true } });
    expect(audit).toEqual([{ channel: "cli" }, { channel: "cli" }]);
  });

  it("refuses a bad SKILL.md, a name unlike the path's and a role too low, storing nothing", async () => {
    const before = await versions();
    const mismatch = await api("admin", "PUT", "/api/v1/skills/other-name", { text: skillMd("quoted-csv") });
    expect(mismatch.status).toBe(400);
    expect(mismatch.json.error.message).toContain('named "quoted-csv" but the path names "other-name"');
    const badName = await api("admin", "PUT", "/api/v1/skills/Bad_Name", { text: skillMd("Bad_Name") });
    expect(badName.status).toBe(400);
    expect(badName.json.error.message).toMatch(/line 2: name "Bad_Name" is not valid/);
    expect((await api("admin", "PUT", "/api/v1/skills/quoted-csv", { source: "x" })).status).toBe(400);
    expect((await api("admin", "PUT", "/api/v1/skills/quoted-csv", {})).status).toBe(400);
    expect((await api("viewer", "PUT", "/api/v1/skills/quoted-csv", { text: skillMd("quoted-csv") })).status).toBe(403);
    const operator = await api("operator", "PUT", "/api/v1/skills/quoted-csv", { text: skillMd("quoted-csv") });
    expect(operator.status).toBe(403);
    expect(operator.json.error.message).toContain("for everyone you need the admin role");
    const missing = await api("viewer", "GET", "/api/v1/skills/no-such-skill");
    expect(missing.status).toBe(404);
    expect(missing.json.error.message).toContain('There is no skill "no-such-skill"');
    expect(await versions()).toEqual(before);
  });

  it("switches a skill off and on by role", async () => {
    const csv = skill("quoted-csv");
    expect((await as("operator").POST("/api/v1/skills/{name}/disable", csv)).response.status).toBe(403);
    expect((await api("approver", "POST", "/api/v1/skills/quoted-csv/disable", { why: "typo" })).status).toBe(400);
    const off = await as("approver").POST("/api/v1/skills/{name}/disable", { ...csv, body: { reason: "checking" } });
    expect(off.response.status, JSON.stringify(off.error)).toBe(200);
    expect(off.data!.current).toMatchObject({ version: 2, state: "disabled", stateReason: "checking" });
    expect((await as("approver").POST("/api/v1/skills/{name}/disable", csv)).response.status).toBe(404);
    const on = await as("approver").POST("/api/v1/skills/{name}/enable", csv);
    expect(on.response.status, JSON.stringify(on.error)).toBe(200);
    expect(on.data!.current).toMatchObject({ version: 2, state: "active" });
    const audit = await tk.t.db.auditEntry.findMany({
      where: { kind: { in: ["skill.disabled", "skill.enabled"] } },
      select: { kind: true, channel: true },
    });
    expect(audit).toEqual(
      expect.arrayContaining([
        { kind: "skill.disabled", channel: "cli" },
        { kind: "skill.enabled", channel: "cli" },
      ]),
    );
  });

  it("every call needs a token", async () => {
    expect((await rest.call("", "GET", "/api/v1/skills")).status).toBe(401);
    expect((await rest.call("", "PUT", "/api/v1/skills/quoted-csv", { text: skillMd("quoted-csv") })).status).toBe(401);
  });
});
