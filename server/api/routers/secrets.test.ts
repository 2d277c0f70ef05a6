// secrets.* through createCaller on a real SQLite database (docs/secrets.md):
// admins only; a value goes in and never comes back; bad names, empty values,
// provider keys and missing secrets are clear errors that change nothing;
// runs.create refuses a secret that does not exist or is a provider key.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { getSecretValue, putSecret } from "@/server/secrets";
import type { Actor } from "@/server/identity";
import { callerFor } from "@/test/helpers/services";
import { trpcError } from "@/test/helpers/trpc";

let tk: TestKernel;
const VALUE = "ghp_secretValue0123456789abcdef";

const caller = (actor: Actor | null) => callerFor(tk, actor);

beforeAll(async () => {
  tk = await createTestKernel({ secrets: true });
  await putSecret(tk.t.db, tk.keyring!, { name: "provider/openai/api-key", value: "sk-provider-key-0123456789", actor: null });
}, 60_000);
afterAll(async () => {
  await tk?.cleanup();
});

describe("secrets", () => {
  it("admins add, list, replace and delete; the value never comes back and provider keys are not listed", async () => {
    const admin = caller(tk.actors.admin);
    const created = await admin.secrets.set({ name: "GITHUB_TOKEN", value: VALUE });
    expect(created).toMatchObject({ name: "GITHUB_TOKEN", env: "GITHUB_TOKEN", createdBy: { id: tk.users.admin }, lastUsedAt: null });
    await admin.secrets.set({ name: "GITHUB_TOKEN", value: `${VALUE}-new` });
    expect(await getSecretValue(tk.t.db, tk.keyring!, "GITHUB_TOKEN", { touch: false })).toBe(`${VALUE}-new`);
    const list = await admin.secrets.list();
    expect(list.map((s) => s.name)).toEqual(["GITHUB_TOKEN"]);
    expect(JSON.stringify(list)).not.toContain(VALUE);
    expect(await admin.secrets.delete({ name: "GITHUB_TOKEN" })).toEqual({ ok: true });
    expect(await admin.secrets.list()).toEqual([]);
    const audit = await tk.t.db.auditEntry.findMany({ where: { kind: { startsWith: "secret." } }, orderBy: { id: "asc" } });
    expect(audit.map((a) => `${a.kind} ${a.subject} ${a.channel}`)).toEqual([
      "secret.created GITHUB_TOKEN web",
      "secret.updated GITHUB_TOKEN web",
      "secret.deleted GITHUB_TOKEN web",
    ]);
    expect(JSON.stringify(audit)).not.toContain(VALUE);
  });

  it("operators see the names and variables alone, to give a run some at launch; viewers see nothing", async () => {
    await caller(tk.actors.admin).secrets.set({ name: "deploy/token", value: VALUE, scope: { agents: ["*"], teams: ["*"] } });
    // One no admin has scoped goes to no run: operators do not see it.
    await caller(tk.actors.admin).secrets.set({ name: "NOBODY_YET", value: VALUE });
    const names = await caller(tk.actors.operator).secrets.names();
    expect(names).toEqual([{ name: "deploy/token", env: "DEPLOY_TOKEN" }]);
    expect(JSON.stringify(names)).not.toContain(VALUE);
    expect((await trpcError(caller(tk.actors.viewer).secrets.names())).code).toBe("FORBIDDEN");
    await caller(tk.actors.admin).secrets.delete({ name: "deploy/token" });
    await caller(tk.actors.admin).secrets.delete({ name: "NOBODY_YET" });
  });

  it("is for admins only", async () => {
    for (const role of ["viewer", "operator", "approver"] as const) {
      expect((await trpcError(caller(tk.actors[role]).secrets.list())).code).toBe("FORBIDDEN");
      expect((await trpcError(caller(tk.actors[role]).secrets.set({ name: "X_TOKEN", value: "v" }))).code).toBe("FORBIDDEN");
    }
    expect((await trpcError(caller(null).secrets.delete({ name: "X_TOKEN" }))).code).toBe("UNAUTHORIZED");
    expect(await tk.t.db.secret.count({ where: { name: "X_TOKEN" } })).toBe(0);
  });

  it.each([
    ["a bad name", { name: "has space", value: "v" }, /A secret name starts with a letter/],
    ["an empty name", { name: " ", value: "v" }, /name is required/],
    ["an empty value", { name: "OK_TOKEN", value: "" }, /value is required/],
    ["a provider key", { name: "provider/openai/api-key", value: "v" }, /Settings → Models/],
    ["a name that would replace PATH", { name: "path", value: "v" }, /PATH/],
  ])("set refuses %s with BAD_REQUEST, storing nothing", async (_what, input, message) => {
    const before = await tk.t.db.secret.findMany({ orderBy: { name: "asc" } });
    const err = await trpcError(caller(tk.actors.admin).secrets.set(input));
    expect(err.code).toBe("BAD_REQUEST");
    expect(err.message).toMatch(message);
    expect(await tk.t.db.secret.findMany({ orderBy: { name: "asc" } })).toEqual(before);
  });

  it("delete of a missing secret is NOT_FOUND and of a provider key BAD_REQUEST, deleting nothing", async () => {
    expect((await trpcError(caller(tk.actors.admin).secrets.delete({ name: "NOPE" }))).code).toBe("NOT_FOUND");
    expect((await trpcError(caller(tk.actors.admin).secrets.delete({ name: "provider/openai/api-key" }))).code).toBe("BAD_REQUEST");
    expect(await tk.t.db.secret.count({ where: { name: "provider/openai/api-key" } })).toBe(1);
  });

  it("runs.create takes secrets by name, and refuses unknown ones and provider keys with BAD_REQUEST", async () => {
    await caller(tk.actors.admin).secrets.set({ name: "DEPLOY_TOKEN", value: VALUE });
    const operator = caller(tk.actors.operator);
    // Not scoped yet: nobody gets it. Then the admin allows demo-coder in any team, scenarios included.
    const unscoped = await trpcError(
      operator.runs.create({ goal: "g", agent: "demo-coder", scenario: [{ text: "hi" }], secrets: ["DEPLOY_TOKEN"] }),
    );
    expect(unscoped.code).toBe("BAD_REQUEST");
    expect(unscoped.message).toMatch(/not allowed for the agent demo-coder/);
    const scoped = await caller(tk.actors.admin).secrets.setScope({
      name: "DEPLOY_TOKEN",
      scope: { agents: ["demo-coder"], teams: ["*"], callerCommands: true },
    });
    expect(scoped.scope).toEqual({ agents: ["demo-coder"], teams: ["*"], callerCommands: true });
    expect((await trpcError(operator.secrets.setScope({ name: "DEPLOY_TOKEN", scope: { agents: ["*"], teams: ["*"] } }))).code).toBe(
      "FORBIDDEN",
    );
    const before = await tk.t.db.run.count();
    for (const secrets of [["NOPE"], ["provider/openai/api-key"]]) {
      const err = await trpcError(operator.runs.create({ goal: "g", agent: "demo-coder", scenario: [{ text: "hi" }], secrets }));
      expect(err.code).toBe("BAD_REQUEST");
    }
    expect(await tk.t.db.run.count()).toBe(before);
    const run = await operator.runs.create({ goal: "g", agent: "demo-coder", scenario: [{ text: "hi" }], secrets: ["DEPLOY_TOKEN"] });
    expect(await tk.settle(run.id)).toBe("succeeded");
  });
});
