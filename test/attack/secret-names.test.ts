// Attack suite: another team's secret names through the list a launcher picks
// from. A name alone can tell of another team's systems ("ACME_PAYROLL_DB");
// an operator of team A must see only the secrets runs of their teams may be
// given (scoped to one of their teams or to any team), never team B's.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callerFor } from "@/test/helpers/services";
import type { Actor } from "@/server/identity";
import { putSecret, setSecretScope } from "@/server/secrets";
import { createTestKernel, type TestKernel } from "../helpers/kernel";
import { agentPeople, type AgentPeople } from "../helpers/agents";

let tk: TestKernel;
let p: AgentPeople;

const names = async (actor: Actor) => (await callerFor(tk, actor).secrets.names()).map((s) => s.name);

beforeAll(async () => {
  tk = await createTestKernel({ secrets: true });
  p = await agentPeople(tk);
  const by = { userId: tk.users.admin, name: "admin", channel: "test" };
  const secret = async (name: string, teams: string[] | null) => {
    await putSecret(tk.t.db, tk.keyring!, { name, value: `${name}-value`, actor: tk.users.admin });
    if (teams) await setSecretScope(tk.t.db, { name, scope: { agents: ["*"], teams } }, by);
  };
  await secret("ACME_PAYROLL_DB", [p.betaId]);
  await secret("ALPHA_DEPLOY_KEY", [p.alphaId]);
  await secret("SHARED_NPM_TOKEN", ["*"]);
  await secret("NOBODY_YET", null);
}, 60_000);

afterAll(async () => tk?.cleanup());

describe("the names of secrets a launcher picks from", () => {
  it("shows team A's operator neither team B's secret nor one scoped to nobody", async () => {
    const seen = await names(p.alphaOperator);
    expect(seen).not.toContain("ACME_PAYROLL_DB");
    expect(seen).not.toContain("NOBODY_YET");
    expect(seen.sort()).toEqual(["ALPHA_DEPLOY_KEY", "SHARED_NPM_TOKEN"]);
  });

  it("shows team B its own and everyone's, and admins every one", async () => {
    expect((await names(p.betaOperator)).sort()).toEqual(["ACME_PAYROLL_DB", "SHARED_NPM_TOKEN"]);
    expect((await names(p.admin)).sort()).toEqual(["ACME_PAYROLL_DB", "ALPHA_DEPLOY_KEY", "NOBODY_YET", "SHARED_NPM_TOKEN"]);
  });

  it("gives each name with the variable its tools see", async () => {
    const listed = await callerFor(tk, p.alphaOperator).secrets.names();
    expect(listed.find((s) => s.name === "ALPHA_DEPLOY_KEY")).toEqual({ name: "ALPHA_DEPLOY_KEY", env: "ALPHA_DEPLOY_KEY" });
  });
});
