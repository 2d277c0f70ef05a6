// The skill library on a real SQLite database: people write skills (checked,
// versioned, scoped by team), the prompt lists those in a run's scope within
// its budget and names what it left out, load_skill returns a skill's body
// and records the use.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser, loadActor, type Actor } from "@/server/identity";
import { createRun } from "@/server/kernel";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { agentPeople, type AgentPeople } from "@/test/helpers/agents";
import { SkillError, SkillLibrary } from "./library";
import { loadSkillTool } from "./tools";
import { SKILLS_HEADER } from "./prompt";
import { getSkill, listSkills } from "./views";

let tk: TestKernel;
let p: AgentPeople;
let alphaApprover: Actor;
let lib: SkillLibrary;

const skillMd = (name: string, opts: { teams?: string[]; agents?: string[]; description?: string; body?: string } = {}) => `---
name: ${name}
description: ${JSON.stringify(opts.description ?? `The ${name} skill: how to do ${name} well; use it when a goal mentions ${name}.`)}
scope:
  agents: ${JSON.stringify(opts.agents ?? [])}
  teams: ${JSON.stringify(opts.teams ?? [])}
---
${opts.body ?? `# ${name}\n\nDo ${name} carefully.`}
`;

async function refusal(p: Promise<unknown>): Promise<SkillError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SkillError);
  return err as SkillError;
}

async function endedRun(actor: Actor, teamId: string | null, goal = "Say hi") {
  const run = await createRun(tk.kernel, { goal, agent: "demo-coder", scenario: [{ text: "hi" }], ...(teamId ? { teamId } : {}) }, actor);
  await tk.settle(run.id);
  return tk.t.db.run.findUniqueOrThrow({ where: { id: run.id }, select: { id: true, agentName: true, teamId: true } });
}

beforeAll(async () => {
  tk = await createTestKernel();
  p = await agentPeople(tk);
  alphaApprover = (await loadActor(
    tk.t.db,
    await createUser(tk.t.db, { email: "alpha-approver@test.local", password: "test-password-1", role: "approver", teams: ["alpha"] }),
  ))!;
  lib = new SkillLibrary({ db: tk.t.db, events: tk.kernel.store });
}, 60_000);

afterAll(async () => {
  await tk?.cleanup();
});

describe("people writing skills", () => {
  it("stores a person's skill as active at once; an edit supersedes it, with audit rows", async () => {
    const v1 = await lib.save(p.alphaOperator, skillMd("alpha-notes", { teams: [p.alphaId] }), "admin");
    expect(v1).toMatchObject({ kind: "skill", tier: 3, version: 1, state: "active", createdById: p.alphaOperator.userId });
    expect(lib.activeSkill("alpha-notes")?.version).toBe(1);
    const v2 = await lib.save(p.alphaOperator, skillMd("alpha-notes", { teams: [p.alphaId], body: "Version two." }), "admin");
    expect(v2.version).toBe(2);
    expect((await tk.t.db.improvement.findUniqueOrThrow({ where: { id: v1.id } })).state).toBe("superseded");
    expect(lib.activeSkill("alpha-notes")).toMatchObject({ version: 2, body: "Version two." });
    const audit = await tk.t.db.auditEntry.findMany({ where: { kind: "skill.saved" }, orderBy: { id: "asc" } });
    expect(audit.map((a) => a.subject)).toEqual(["alpha-notes v1", "alpha-notes v2"]);
  });

  it("refuses an invalid SKILL.md with every problem and stores nothing", async () => {
    const before = await tk.t.db.improvement.count();
    const err = await refusal(lib.save(p.alphaOperator, "---\nname: X\ncolour: red\n---\n", "admin"));
    expect(err.code).toBe("INVALID_INPUT");
    expect(err.problems.map((x) => x.message)).toEqual([
      expect.stringContaining("description is required"),
      expect.stringContaining('name "X" is not valid'),
      expect.stringContaining('unknown front-matter key "colour"'),
      expect.stringContaining("the body is empty"),
    ]);
    expect(await tk.t.db.improvement.count()).toBe(before);
  });

  it("needs admin for a skill for everyone, operator in each team otherwise, and keeps names to their team", async () => {
    expect((await refusal(lib.save(p.alphaOperator, skillMd("for-all"), "admin"))).message).toMatch(/for everyone you need the admin role/);
    expect((await refusal(lib.save(p.alphaViewer, skillMd("viewer-skill", { teams: [p.alphaId] }), "admin"))).message).toBe(
      `To save this skill you need the operator role in team ${p.alphaId}; you are viewer`,
    );
    expect((await refusal(lib.save(p.alphaOperator, skillMd("two-teams", { teams: [p.alphaId, p.betaId] }), "admin"))).code).toBe(
      "FORBIDDEN",
    );
    // beta cannot see alpha's skill, so its name is taken for beta.
    expect((await refusal(lib.save(p.betaOperator, skillMd("alpha-notes", { teams: [p.betaId] }), "admin"))).code).toBe("CONFLICT");
    expect((await lib.save(p.admin, skillMd("for-all"), "admin")).state).toBe("active");
  });

  it("shows each team its own skills and those for everyone", async () => {
    const names = async (a: Actor) => (await listSkills(tk.t.db, a)).map((s) => s.name);
    expect(await names(p.alphaOperator)).toEqual(expect.arrayContaining(["alpha-notes", "for-all"]));
    expect(await names(p.betaOperator)).not.toContain("alpha-notes");
    expect(await names(p.betaOperator)).toContain("for-all");
    expect((await refusal(getSkill(tk.t.db, p.betaOperator, "alpha-notes"))).code).toBe("NOT_FOUND");
    const view = await getSkill(tk.t.db, p.alphaOperator, "alpha-notes");
    expect(view.versions.map((v) => [v.version, v.state])).toEqual([
      [2, "active"],
      [1, "superseded"],
    ]);
    expect(view.current.source).toContain("Version two.");
  });

  it("lets an approver disable and enable a skill, not an operator", async () => {
    expect((await refusal(lib.setEnabled(p.alphaOperator, "alpha-notes", false, "admin"))).message).toBe(
      "To disable a skill you need the approver role; you are operator",
    );
    await lib.setEnabled(alphaApprover, "alpha-notes", false, "admin", "testing");
    expect(lib.activeSkill("alpha-notes")).toBeUndefined();
    expect(lib.toolsFor({ agentName: "demo-coder", teamId: p.alphaId })).toEqual(["load_skill"]); // for-all is still there
    await lib.setEnabled(alphaApprover, "alpha-notes", true, "admin");
    expect(lib.activeSkill("alpha-notes")?.version).toBe(2);
    expect(
      (await tk.t.db.auditEntry.findMany({ where: { kind: { in: ["skill.disabled", "skill.enabled"] } }, orderBy: { id: "asc" } })).map(
        (a) => a.kind,
      ),
    ).toEqual(["skill.disabled", "skill.enabled"]);
  });
});

describe("skills in a run", () => {
  it("offers load_skill and the listing only for skills in scope: agent listed or none, team listed or none", async () => {
    await lib.save(p.admin, skillMd("coder-only", { agents: ["demo-coder"] }), "admin");
    expect(lib.inScope({ agentName: "demo-coder", teamId: p.alphaId }).map((s) => s.name)).toEqual([
      "alpha-notes",
      "coder-only",
      "for-all",
    ]);
    expect(lib.inScope({ agentName: "other-agent", teamId: p.betaId }).map((s) => s.name)).toEqual(["for-all"]);
    expect(lib.inScope({ agentName: "demo-coder", teamId: null }).map((s) => s.name)).toEqual(["coder-only", "for-all"]);
    const empty = new SkillLibrary({ db: tk.t.db });
    expect(empty.toolsFor({ agentName: "demo-coder", teamId: null })).toEqual([]);
    expect(await empty.promptFor({ id: "r", agentName: "demo-coder", teamId: null })).toBeNull();
  });

  it("load_skill returns the body of a skill in scope and records the use once per call", async () => {
    const run = await endedRun(p.alphaOperator, p.alphaId);
    const scoped = { id: run.id, agentName: run.agentName, teamId: run.teamId };
    expect(await lib.load(scoped, "alpha-notes", "call-1")).toEqual({ name: "alpha-notes", version: 2, body: "Version two." });
    await lib.load(scoped, "alpha-notes", "call-1"); // a replay of the same call
    await lib.load(scoped, "alpha-notes", "call-2");
    const id = lib.activeSkill("alpha-notes")!.id;
    expect(
      await tk.t.db.improvementUse.findMany({
        where: { improvementId: id },
        select: { runId: true, toolCallId: true, ok: true },
        orderBy: { toolCallId: "asc" },
      }),
    ).toEqual([
      { runId: run.id, toolCallId: "call-1", ok: true },
      { runId: run.id, toolCallId: "call-2", ok: true },
    ]);
    const listed = (await listSkills(tk.t.db, p.alphaOperator)).find((s) => s.name === "alpha-notes")!;
    expect(listed.useCount).toBe(2);
    expect(listed.loaded).toEqual({ runs: 1, succeeded: 1, successRate: 1 });
    expect((await getSkill(tk.t.db, p.alphaOperator, "alpha-notes")).loadedBy[0]).toMatchObject({
      runId: run.id,
      version: 2,
      run: { status: "succeeded" },
    });
  });

  it("load_skill refuses a skill out of the run's scope, naming those in scope", async () => {
    const err = await refusal(lib.load({ id: "run-x", agentName: "other-agent", teamId: p.betaId }, "alpha-notes", "c"));
    expect(err.message).toBe('There is no skill "alpha-notes" for this run. Skills you can load: for-all.');
    expect((await refusal(lib.load({ id: "run-x", agentName: "other-agent", teamId: p.betaId }, "no-such", "c"))).message).toContain(
      "Skills you can load: for-all.",
    );
  });

  it("lists skills within the budget, says how many were left out, and records them once per run", async () => {
    const small = new SkillLibrary({ db: tk.t.db, events: tk.kernel.store, budgetTokens: 120 });
    for (let i = 0; i < 6; i++) await lib.save(p.admin, skillMd(`budget-${i}`, { agents: ["demo-coder"], teams: [p.betaId] }), "admin");
    await small.refresh();
    const run = await endedRun(p.betaOperator, p.betaId);
    const scoped = { id: run.id, agentName: run.agentName, teamId: run.teamId };
    const text = (await small.promptFor(scoped))!;
    const lines = text.split("\n");
    expect(lines[0]).toBe(SKILLS_HEADER);
    const shown = lines.filter((l) => l.startsWith("- ")).length;
    const total = small.inScope(scoped).length;
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(total);
    expect(lines[lines.length - 1]).toBe(`(${total - shown} more skills in your scope did not fit the 120-token list and are not shown.)`);
    await small.promptFor(scoped); // the next turn
    await new SkillLibrary({ db: tk.t.db, events: tk.kernel.store, budgetTokens: 120 }).refresh().then(() => small.promptFor(scoped)); // after a restart too
    const events = await tk.t.db.runEvent.findMany({ where: { runId: run.id, type: "skills.omitted" } });
    expect(events).toHaveLength(1);
    const payload = JSON.parse(events[0].payload) as { names: string[]; budgetTokens: number };
    expect(payload.budgetTokens).toBe(120);
    expect(payload.names).toHaveLength(total - shown);
    const listed = await listSkills(tk.t.db, p.admin);
    for (const name of payload.names) expect(listed.find((s) => s.name === name)?.omittedRuns).toBe(1);
    // The default budget lists them all.
    expect((await lib.promptFor(scoped))!.split("\n").filter((l) => l.startsWith("- "))).toHaveLength(total);
  });
});

describe("in a real run", () => {
  it("the kernel lists the skills in the system prompt, offers load_skill, and the call returns the body and records the use", async () => {
    const prompts: string[] = [];
    tk.kernel.deps.registry.register(loadSkillTool(lib));
    tk.kernel.deps.extensions = {
      toolsFor: (run, spec) => lib.toolsFor({ agentName: spec.name, teamId: run.teamId }),
      promptFor: async (run, spec) => {
        const text = await lib.promptFor({ id: run.id, agentName: spec.name, teamId: run.teamId });
        if (text) prompts.push(text);
        return text;
      },
    };
    try {
      const run = await createRun(
        tk.kernel,
        {
          goal: "Use a skill",
          agent: "demo-coder",
          teamId: p.alphaId,
          scenario: [{ toolCalls: [{ tool: "load_skill", args: { name: "alpha-notes" } }] }, { text: "done" }],
        },
        p.alphaOperator,
      );
      expect(await tk.settle(run.id)).toBe("succeeded");
      expect(prompts[0]).toContain("- alpha-notes: ");
      const result = await tk.t.db.runEvent.findFirstOrThrow({ where: { runId: run.id, type: "tool.result" } });
      expect(result.payload).toContain("Version two.");
      expect(await tk.t.db.improvementUse.count({ where: { runId: run.id, improvementId: lib.activeSkill("alpha-notes")!.id } })).toBe(1);
    } finally {
      tk.kernel.deps.extensions = undefined;
    }
  });
});
