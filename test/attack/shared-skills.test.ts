// Attack suite: a skill shared by two teams. Its writers needed the operator
// role in both; an approver of one team must not turn it back on in the
// other's runs after that team's approver turned it off, through the
// Skills page, REST's service or the Improvements page. Turning it off stays
// open to an approver of either team: stopping is the safe direction.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callerFor } from "@/test/helpers/services";
import { createUser, loadActor, type Actor, type Role } from "@/server/identity";
import { ImprovementError, SkillError, SkillLibrary, actOnImprovement } from "@/server/improve";
import { createTestKernel, type TestKernel } from "../helpers/kernel";
import { agentPeople, type AgentPeople } from "../helpers/agents";
import { rejection } from "../helpers/rejects";
import { trpcError } from "../helpers/trpc";

let tk: TestKernel;
let p: AgentPeople;
let lib: SkillLibrary;
let alphaApprover: Actor;
let betaApprover: Actor;
let bothApprover: Actor;

const caller = (actor: Actor) => callerFor(tk, actor, { improve: { skills: lib } });
const skillMd = (name: string, teams: string[]) =>
  `---\nname: ${name}\ndescription: "The ${name} skill: use it when a goal mentions ${name}."\nscope:\n  agents: []\n  teams: ${JSON.stringify(teams)}\n---\n# ${name}\n\nShared instructions.\n`;
const stateOf = async (name: string) =>
  (await tk.t.db.improvement.findFirstOrThrow({ where: { kind: "skill", name }, orderBy: { version: "desc" } })).state;

async function member(email: string, roles: Array<[string, Role]>): Promise<Actor> {
  const id = await createUser(tk.t.db, { email, password: "test-password-1", role: "viewer", teams: [] });
  await tk.t.db.teamMember.createMany({ data: roles.map(([teamId, role]) => ({ teamId, userId: id, role })) });
  return (await loadActor(tk.t.db, id))!;
}

beforeAll(async () => {
  tk = await createTestKernel();
  p = await agentPeople(tk);
  lib = new SkillLibrary({ db: tk.t.db });
  alphaApprover = await member("alpha-approver@test.local", [[p.alphaId, "approver"]]);
  betaApprover = await member("beta-approver@test.local", [[p.betaId, "approver"]]);
  bothApprover = await member("both-approver@test.local", [
    [p.alphaId, "approver"],
    [p.betaId, "approver"],
  ]);
  for (const name of ["shared-a", "shared-b", "shared-c"]) {
    await lib.save(bothApprover, skillMd(name, [p.alphaId, p.betaId]), "admin");
    await lib.setEnabled(betaApprover, name, false, "admin", "misbehaves in beta's runs");
  }
}, 60_000);

afterAll(async () => tk?.cleanup());

describe("a skill shared by alpha and beta, turned off by beta", () => {
  it("an approver of alpha alone cannot turn it back on, through the library or the Skills page", async () => {
    const err = await rejection(lib.setEnabled(alphaApprover, "shared-a", true, "admin"), SkillError);
    expect(err.code).toBe("FORBIDDEN");
    expect(err.message).toMatch(/approver role in each of its teams/);
    const page = await trpcError(caller(alphaApprover).skills.enable({ name: "shared-a" }));
    expect(page.code).toBe("FORBIDDEN");
    expect(await stateOf("shared-a")).toBe("disabled");
  });

  it("nor through the Improvements page, by the version's id", async () => {
    const row = await tk.t.db.improvement.findFirstOrThrow({ where: { kind: "skill", name: "shared-b", state: "disabled" } });
    const deps = { db: tk.t.db, unload() {}, load: async () => {}, promote: async () => true };
    const err = await rejection(actOnImprovement(deps, alphaApprover, row.id, "enable", "admin"), ImprovementError);
    expect(err.code).toBe("FORBIDDEN");
    expect(err.message).toMatch(/in each of its teams/);
    expect(await stateOf("shared-b")).toBe("disabled");
  });

  it("an approver of both teams turns it on; an approver of either may turn it off", async () => {
    await lib.setEnabled(bothApprover, "shared-c", true, "admin");
    expect(await stateOf("shared-c")).toBe("active");
    await lib.setEnabled(alphaApprover, "shared-c", false, "admin", "stop it everywhere");
    expect(await stateOf("shared-c")).toBe("disabled");
  });
});
