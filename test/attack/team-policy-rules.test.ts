// Attack: team policy rules follow the team, not its name. A team admin can
// rename their own team; the rules written for it must keep applying (also
// after Rein restarts), a team that takes the old name must not inherit them,
// and a rule written with the new name applies at once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HumanGate } from "@/server/hitl";
import { createTeam, listTeams, renameTeam } from "@/server/identity";
import { DEFAULT_POLICY, PolicyGate, activePolicy, parsePolicy, savePolicy, teamNameNotes } from "@/server/policy";
import type { GateCall } from "@/server/tools";
import { createTestKernel, type TestKernel } from "../helpers/kernel";

let tk: TestKernel;
let payments: string;
let other: string;
let node = 0;
const by = () => ({ actor: tk.actors.admin, channel: "test" });
const rules = (team: string) =>
  `rules:\n  - { name: team asks, team: ${team}, tool: shell, decision: ask }\n  - { tool: shell, decision: allow }\n`;
const save = (source: string) => savePolicy(tk.t.db, { source, comment: "team rule", actor: { id: tk.users.admin, name: "admin" } });

function call(teamId: string): GateCall {
  const n = `n${++node}`;
  return {
    tool: tk.kernel.deps.registry.get("shell")!,
    args: { command: "ls" },
    address: { runId: `run-${n}`, nodeId: n, checkpointId: "c" },
    ctx: {
      runId: `run-${n}`,
      workspace: null as never,
      agent: { name: "demo-coder", handoffs: [] },
      actorId: tk.users.operator,
      teamId,
      tier: "T1",
      signal: new AbortController().signal,
    },
  };
}
const effect = async (gate: HumanGate, teamId: string) => (await gate.check(call(teamId))).note?.policy?.effect;
const restarted = () => new HumanGate({ db: tk.t.db, policy: new PolicyGate(tk.t.db) });

beforeAll(async () => {
  tk = await createTestKernel({ hitl: true });
  payments = (await createTeam(tk.t.db, by(), "payments")).id;
  other = (await createTeam(tk.t.db, by(), "other")).id;
  await save(rules("payments"));
  tk.hitl!.policy.invalidate();
}, 60_000);
afterAll(async () => tk?.cleanup());

describe("a team rule after its team is renamed", () => {
  it("keeps asking for the team it was written for, before and after a restart; the team that takes the name is not asked", async () => {
    expect(await effect(tk.hitl!.gate, payments)).toBe("ask");
    expect(await effect(tk.hitl!.gate, other)).toBe("allow");
    await renameTeam(tk.t.db, by(), payments, "payments-old");
    await renameTeam(tk.t.db, by(), other, "payments");
    expect(await effect(restarted(), payments)).toBe("ask");
    expect(await effect(restarted(), other)).toBe("allow");
    expect(await effect(tk.hitl!.gate, payments)).toBe("ask");
    expect(await effect(tk.hitl!.gate, other)).toBe("allow");
    // Settings › Teams counts the rule for the team it names, under its new name.
    const teams = await listTeams(tk.t.db, tk.actors.admin);
    expect(teams.find((t) => t.id === payments)?.policyRules).toBe(1);
    expect(teams.find((t) => t.id === other)?.policyRules).toBe(0);
    // The editor says where the rules' team went, by its current name.
    const active = await activePolicy(tk.t.db);
    const parsed = parsePolicy(active.source);
    const notes = parsed.ok ? await teamNameNotes(tk.t.db, parsed.policy, active.teams, active.source) : [];
    expect(notes).toEqual([{ line: 2, message: expect.stringContaining('team: "payments" is now called "payments-old"') }]);
  });

  it("a rule written with the team's new name applies at once, without a restart", async () => {
    await renameTeam(tk.t.db, by(), payments, "payments-new");
    await save(rules("payments-new"));
    tk.hitl!.policy.invalidate();
    expect(await effect(tk.hitl!.gate, payments)).toBe("ask");
    expect(await effect(tk.hitl!.gate, other)).toBe("allow");
  });

  it("a rule naming no team is refused when saved, and nothing is stored", async () => {
    await expect(save(rules("nobody-here"))).rejects.toThrow(/no team is called "nobody-here"/);
  });
});

describe("versions and the default", () => {
  it("the default policy has no team rules", () => {
    const parsed = parsePolicy(DEFAULT_POLICY);
    expect(parsed.ok && parsed.policy.levels.team).toEqual([]);
  });

  it("a version saved before teams were resolved is resolved once, on load, and then keeps its team", async () => {
    const latest = (await tk.t.db.policyDocument.findFirstOrThrow({ orderBy: { version: "desc" } })).version;
    const team = (await createTeam(tk.t.db, by(), "legacy")).id;
    await tk.t.db.policyDocument.create({ data: { version: latest + 1, source: rules("legacy"), comment: "before team ids" } });
    tk.hitl!.policy.invalidate();
    expect(await effect(tk.hitl!.gate, team)).toBe("ask");
    await renameTeam(tk.t.db, by(), team, "legacy-renamed");
    expect(await effect(restarted(), team)).toBe("ask");
  });
});

describe("a person's email in actor rules", () => {
  it("is read again within seconds of a change, not kept for the life of the process", async () => {
    let t = Date.parse("2026-01-01T00:00:00Z");
    const operator = await tk.t.db.user.findUniqueOrThrow({ where: { id: tk.users.operator }, select: { email: true } });
    await save(
      `rules:\n  - { name: by address, actor: moved@test.local, tool: shell, decision: ask }\n  - { tool: shell, decision: allow }\n`,
    );
    const gate = new HumanGate({ db: tk.t.db, policy: new PolicyGate(tk.t.db), now: () => new Date(t) });
    try {
      expect(await effect(gate, other)).toBe("allow");
      await tk.t.db.user.update({ where: { id: tk.users.operator }, data: { email: "moved@test.local" } });
      t += 6_000;
      expect(await effect(gate, other)).toBe("ask");
    } finally {
      await tk.t.db.user.update({ where: { id: tk.users.operator }, data: { email: operator.email } });
    }
  });
});
