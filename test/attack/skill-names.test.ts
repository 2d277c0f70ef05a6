// Attack: a team squats a name. Skills and runtime tools are found by name;
// a team that creates one under the name of another team's (or everyone's,
// or an installed extension's) must not take it away from the runs that had
// it: names resolve within what a run may see, and an improver cannot write
// a new version over a name another team holds.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun } from "@/server/kernel";
import { ToolError } from "@/server/tools";
import { Improve, SkillLibrary, proposeSkill, type ActiveSkill } from "@/server/improve";
import { createTestKernel, SILENT_LOG, type TestKernel } from "@/test/helpers/kernel";
import { agentPeople, type AgentPeople } from "@/test/helpers/agents";
import { rejection } from "@/test/helpers/rejects";

let tk: TestKernel;
let p: AgentPeople;
let lib: SkillLibrary;
let improve: Improve;

const EXTENSION_SKILL: ActiveSkill = {
  id: "ext-csv-tips",
  name: "csv-tips",
  version: 1,
  description: "How to read CSV files with quoted fields.",
  body: "# csv-tips\n\nThe extension's instructions.",
  scopeAgents: [],
  scopeTeams: [],
  tags: [],
  extension: "csv-tools v1.0.0",
};

const skillMd = (name: string, teams: string[], body: string) => `---
name: ${name}
description: "The ${name} skill: use it when a goal mentions ${name}."
scope:
  agents: []
  teams: ${JSON.stringify(teams)}
---
${body}
`;

async function runIn(teamId: string) {
  const actor = teamId === p.alphaId ? p.alphaOperator : p.betaOperator;
  const run = await createRun(tk.kernel, { goal: "Say hi", agent: "demo-coder", scenario: [{ text: "hi" }], teamId }, actor);
  await tk.settle(run.id);
  return { id: run.id, agentName: "demo-coder", teamId };
}

beforeAll(async () => {
  tk = await createTestKernel();
  p = await agentPeople(tk);
  lib = new SkillLibrary({ db: tk.t.db, events: tk.kernel.store, extensionSkills: () => [EXTENSION_SKILL] });
  improve = new Improve({ db: tk.t.db, kernel: tk.kernel, log: SILENT_LOG });
  await improve.start({ sweepMs: 60_000 });
}, 60_000);

afterAll(async () => {
  await improve?.stop();
  await tk?.cleanup();
});

describe("a skill name another team squats", () => {
  it("a beta-only skill named like an extension's skill leaves alpha's runs the extension's skill", async () => {
    await lib.save(p.betaOperator, skillMd("csv-tips", [p.betaId], "# csv-tips\n\nBeta's instructions."), "admin");
    const alpha = await runIn(p.alphaId);
    const beta = await runIn(p.betaId);
    expect(lib.inScope(alpha).map((s) => s.extension ?? "library")).toEqual(["csv-tools v1.0.0"]);
    expect(lib.toolsFor(alpha)).toEqual(["load_skill"]);
    expect((await lib.load(alpha, "csv-tips", null)).body).toContain("The extension's instructions.");
    expect(await lib.promptFor(alpha)).toContain("csv-tips");
    // Beta's own runs get beta's skill under that name.
    expect((await lib.load(beta, "csv-tips", null)).body).toContain("Beta's instructions.");
  });

  it("beta's improver cannot write a version over everyone's skill of that name", async () => {
    await lib.save(p.admin, skillMd("release-notes", [], "# release-notes\n\nEveryone's instructions."), "admin");
    const beta = await runIn(p.betaId);
    const err = await rejection(
      proposeSkill(
        lib,
        { db: tk.t.db, router: tk.kernel.deps.router },
        beta.id,
        skillMd("release-notes", [p.betaId], "# release-notes\n\nBeta's take-over."),
      ),
      ToolError,
    );
    expect(err.code).toBe("NAME_TAKEN");
    const alpha = await runIn(p.alphaId);
    expect((await lib.load(alpha, "release-notes", null)).body).toContain("Everyone's instructions.");
  });
});

describe("a runtime tool name another team holds", () => {
  it("beta's improver cannot propose a new version of alpha's live runtime tool", async () => {
    await tk.t.db.improvement.create({
      data: {
        tier: 1,
        kind: "runtime_tool",
        name: "csv_column_sum",
        version: 1,
        state: "active",
        description: "Alpha's tool.",
        source: "function run() { return 1; }",
        argsSchema: "{}",
        scopeAgents: '["demo-csv"]',
        scopeTeams: JSON.stringify([p.alphaId]),
      },
    });
    const friction = await tk.t.db.friction.create({
      data: { kind: "repeated_failure", signature: "sig-squat", agentName: "demo-csv", title: "shell failed 3 times", tool: "shell" },
    });
    await tk.t.db.run.create({
      data: {
        id: "imp-squat",
        goal: "improve",
        agentName: "improver",
        agentVersion: 1,
        model: "scripted/improver",
        createdById: p.betaOperator.userId,
        status: "running",
        workflow: "improve",
        teamId: p.betaId,
      },
    });
    await tk.t.db.hackCycle.create({
      data: {
        frictionId: friction.id,
        agentName: "demo-csv",
        sessionRunId: "session-squat",
        state: "ISOLATE",
        improverRunId: "imp-squat",
        teamId: p.betaId,
        deadlineAt: new Date(Date.now() + 600_000),
      },
    });
    const err = await rejection(
      improve.cycles.propose("imp-squat", {
        name: "csv_column_sum",
        description: "Beta's replacement.",
        argsSchema: { type: "object", properties: {} },
        source: "function run() { return { total: 0 }; }",
        replayClass: "pure",
        capabilities: [],
        cases: [{ name: "one", args: {}, expect: { ok: true, output: { total: 0 } } }],
      }),
      ToolError,
    );
    expect(err.message).toMatch(/taken by another team/);
    expect(await tk.t.db.improvement.count({ where: { kind: "runtime_tool", name: "csv_column_sum" } })).toBe(1);
  });
});
