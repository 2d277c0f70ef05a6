// Attack suite, issue class 5: secrets are scoped. An operator cannot hand
// a secret to an agent or a team the admin did not allow, nor to a run that
// plays the operator's own scenario (whose commands could print the value in
// an encoding no redactor knows) unless the admin allowed exactly that; a
// scope narrowed later stops runs already going; a person taking over the
// terminal types commands that never get a secret.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun } from "@/server/kernel";
import { putSecret, setSecretScope } from "@/server/secrets";
import { createTestKernel, type TestKernel } from "../helpers/kernel";

const VALUE = "scoped-secret-value-9f8e7d";
const leaky = { turns: [{ toolCalls: [{ tool: "shell", args: { command: 'printf %s "$DEPLOY_TOKEN" | rev' } }] }, { text: "done" }] };

let tk: TestKernel;
const admin = () => ({ userId: tk.users.admin, name: "admin", channel: "test" });

beforeAll(async () => {
  tk = await createTestKernel({ secrets: true });
  await putSecret(tk.t.db, tk.keyring!, { name: "DEPLOY_TOKEN", value: VALUE, actor: tk.users.admin });
}, 60_000);
afterAll(async () => tk?.cleanup());

const launch = (agent: string, extra: Record<string, unknown> = {}) =>
  createRun(tk.kernel, { goal: "g", agent, secrets: ["DEPLOY_TOKEN"], ...extra }, tk.actors.operator);

describe("who may be given a secret", () => {
  it("a secret no admin has scoped goes to no run, and nothing is created", async () => {
    const before = await tk.t.db.run.count();
    await expect(launch("demo-deploy")).rejects.toThrow(
      /not allowed for the agent demo-deploy; an admin can allow it in Settings › Secrets/,
    );
    expect(await tk.t.db.run.count()).toBe(before);
  });

  it("only the agents and teams the admin named", async () => {
    // Scopes name teams by id (a name could move to another team).
    const other = await tk.t.db.team.create({ data: { name: "other-team" }, select: { id: true } });
    const own = await tk.t.db.team.findUniqueOrThrow({ where: { name: "default" }, select: { id: true } });
    await setSecretScope(tk.t.db, { name: "DEPLOY_TOKEN", scope: { agents: ["demo-deploy"], teams: [other.id] } }, admin());
    await expect(launch("demo-deploy")).rejects.toThrow(/not allowed for team default/);
    await setSecretScope(tk.t.db, { name: "DEPLOY_TOKEN", scope: { agents: ["demo-deploy"], teams: [own.id] } }, admin());
    await expect(launch("demo-coder")).rejects.toThrow(/not allowed for the agent demo-coder/);
    const ok = await launch("demo-deploy");
    expect(ok.id).toBeTruthy();
  });

  it("a run that plays the operator's own scenario gets it only where the admin allowed exactly that", async () => {
    await setSecretScope(tk.t.db, { name: "DEPLOY_TOKEN", scope: { agents: ["demo-coder"], teams: ["*"] } }, admin());
    await expect(launch("demo-coder", { scenario: leaky })).rejects.toThrow(/runs whose commands come from their launcher/);
    await setSecretScope(tk.t.db, { name: "DEPLOY_TOKEN", scope: { agents: ["demo-coder"], teams: ["*"], callerCommands: true } }, admin());
    const run = await launch("demo-coder", { scenario: leaky });
    expect(await tk.settle(run.id)).toBe("succeeded");
  });

  it("narrowing the scope stops a run already going: its next command gets nothing", async () => {
    await setSecretScope(tk.t.db, { name: "DEPLOY_TOKEN", scope: { agents: ["demo-coder"], teams: ["*"], callerCommands: true } }, admin());
    const slow = {
      turns: [
        { toolCalls: [{ tool: "shell", args: { command: "sleep 1" } }] },
        { toolCalls: [{ tool: "shell", args: { command: 'printf %s "$DEPLOY_TOKEN" | rev' } }] },
        { text: "done" },
      ],
    };
    const run = await launch("demo-coder", { scenario: slow });
    await setSecretScope(tk.t.db, { name: "DEPLOY_TOKEN", scope: { agents: [], teams: [] } }, admin());
    await tk.settle(run.id);
    const events = await tk.kernel.store.listEvents(run.id, 0, 1000);
    const results = events.filter((e) => e.type === "tool.result").map((e) => JSON.stringify(e.payload));
    expect(results.join("\n")).toMatch(/SECRET_UNAVAILABLE.*not allowed/);
    expect(results.join("\n")).not.toContain([...VALUE].reverse().join(""));
  });
});
