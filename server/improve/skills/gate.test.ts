// The review gate of skills the improver proposes: a reviewer of another
// family approves or rejects with reasons, the trigger check holds the skill
// to its sample goals, and only the gate writes the verdict.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRun } from "@/server/kernel";
import { ToolError } from "@/server/tools";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { rejection } from "@/test/helpers/rejects";
import { agentPeople, type AgentPeople } from "@/test/helpers/agents";
import { judgeWorld, messagesOf, says, type JudgeWorld } from "@/test/helpers/judges";
import { SkillLibrary } from "./library";
import { lexicallyApplies, readVerdict, reviewSkill, type SkillReview } from "./gate";
import { loadSkillTool, proposeSkill, proposeSkillTool } from "./tools";
import { readSkillMd } from "./skill-md";

let tk: TestKernel;
let p: AgentPeople;
let lib: SkillLibrary;
let world: JudgeWorld;
let runId: string;
let teamId: string;

const REJECTS = { turns: [{ text: 'Verdict follows. {"verdict":"reject","reasons":["The body tells the agent to skip the tests."]}' }] };

const skillMd = (name: string, opts: { should?: string[]; shouldNot?: string[]; teams?: string[]; body?: string } = {}) => `---
name: ${name}
description: "Adds up a numeric column of a CSV file with quoted fields; use it when a goal asks for the total of a CSV column."
tags: [csv]
scope:
  teams: ${JSON.stringify(opts.teams ?? [teamId])}
triggers:
  should: ${JSON.stringify(opts.should ?? ["Sum the amount column of sales.csv"])}
  shouldNot: ${JSON.stringify(opts.shouldNot ?? ["Write a haiku about autumn leaves"])}
---
${opts.body ?? "Parse the file with a CSV parser that honours quotes, then add the column."}
`;

const gate = (extra: object = {}) => ({ db: tk.t.db, router: tk.kernel.deps.router, ...extra });

const toolError = (p: Promise<unknown>) => rejection(p, ToolError);

beforeAll(async () => {
  tk = await createTestKernel();
  p = await agentPeople(tk);
  lib = new SkillLibrary({ db: tk.t.db, events: tk.kernel.store });
  world = await judgeWorld({ "alpha/a1": "alpha", "beta/b1": "beta" }, { rules: { judge: { candidates: ["alpha/a1", "beta/b1"] } } });
  // The improver's run: scripted, so there is no model key and the scripted reviewer reviews.
  const run = await createRun(
    tk.kernel,
    { goal: "Improve", agent: "demo-coder", scenario: [{ text: "done" }], teamId: p.alphaId },
    p.alphaOperator,
  );
  await tk.settle(run.id);
  runId = run.id;
  teamId = (await tk.t.db.run.findUniqueOrThrow({ where: { id: run.id } })).teamId!;
}, 60_000);

afterAll(async () => {
  await world?.close();
  await tk?.cleanup();
});

describe("the trigger check and the reviewer's answer", () => {
  const skill = readSkillMd(
    `---\nname: csv-totals\ndescription: Adds up a numeric column of a CSV file; use it for totals of CSV columns.\ntags: [spreadsheet]\n---\nbody\n`,
  );
  it.each([
    ["Sum the amount column of sales.csv", true],
    ["Compute totals for the price column in orders.csv", true],
    ["Write a haiku about autumn leaves", false],
    ["Column", true],
    ["Deploy the web server", false],
  ])("lexically, %j matches: %s", (goal, applies) => expect(lexicallyApplies(skill, goal)).toBe(applies));

  it("reads a verdict in JSON, and takes an unreadable answer as a rejection", () => {
    expect(readVerdict('ok {"verdict":"approve","reasons":["fine"],"triggers":[{"goal":"a","applies":true}]}')).toEqual({
      verdict: "approve",
      reasons: ["fine"],
      triggers: new Map([["a", true]]),
    });
    expect(readVerdict("Looks good to me!")).toMatchObject({
      verdict: "reject",
      reasons: [expect.stringContaining("could not be read as a verdict")],
    });
    expect(readVerdict('{"verdict":"maybe"}').verdict).toBe("reject");
  });
});

describe("proposing a skill", () => {
  it("activates a skill the scripted reviewer approves whose triggers hold, with the review stored", async () => {
    const result = await proposeSkill(lib, gate(), runId, skillMd("csv-totals"));
    expect(result).toMatchObject({ name: "csv-totals", version: 1, state: "active", reviewer: "scripted · scenario given with the run" });
    expect(result.triggers).toEqual([
      { goal: "Sum the amount column of sales.csv", expected: true, applies: true, by: "lexical" },
      { goal: "Write a haiku about autumn leaves", expected: false, applies: false, by: "lexical" },
    ]);
    const row = await tk.t.db.improvement.findFirstOrThrow({ where: { kind: "skill", name: "csv-totals" } });
    expect(row).toMatchObject({ state: "active", authorRunId: runId, tier: 3, createdById: null });
    expect((JSON.parse(row.review!) as SkillReview).passed).toBe(true);
    expect(JSON.parse(row.cases)).toEqual({
      should: ["Sum the amount column of sales.csv"],
      shouldNot: ["Write a haiku about autumn leaves"],
    });
    expect(lib.activeSkill("csv-totals")?.version).toBe(1);
  });

  it("rejects a skill the reviewer rejects, with the reviewer's reasons, and the active version stays", async () => {
    const result = await proposeSkill(
      lib,
      gate({ scriptedReviewer: REJECTS }),
      runId,
      skillMd("csv-totals", { body: "Skip the tests and add the column." }),
    );
    expect(result).toMatchObject({ version: 2, state: "rejected", reasons: ["The body tells the agent to skip the tests."] });
    const row = await tk.t.db.improvement.findFirstOrThrow({ where: { kind: "skill", name: "csv-totals", version: 2 } });
    expect(row.state).toBe("rejected");
    expect(row.stateReason).toBe("The body tells the agent to skip the tests.");
    expect(JSON.parse(row.review!)).toMatchObject({
      verdict: "reject",
      passed: false,
      reasons: ["The body tells the agent to skip the tests."],
    });
    expect(lib.activeSkill("csv-totals")?.version).toBe(1);
  });

  it("refuses a skill whose trigger check fails even when the reviewer approves", async () => {
    const result = await proposeSkill(
      lib,
      gate(),
      runId,
      skillMd("csv-totals", { should: ["Deploy the web server"], shouldNot: ["Total the amount column of a CSV file"] }),
    );
    expect(result.state).toBe("rejected");
    expect(result.reasons).toEqual([
      expect.any(String), // the scripted reviewer's approval
      'Trigger check (lexical): the skill should apply but does not for the goal "Deploy the web server"',
      'Trigger check (lexical): the skill should not apply but does for the goal "Total the amount column of a CSV file"',
    ]);
  });

  it("supersedes the active version when a new one passes", async () => {
    const result = await proposeSkill(lib, gate(), runId, skillMd("csv-totals", { body: "Version four." }));
    expect(result).toMatchObject({ version: 4, state: "active" });
    const states = await tk.t.db.improvement.findMany({
      where: { kind: "skill", name: "csv-totals" },
      orderBy: { version: "asc" },
      select: { state: true },
    });
    expect(states.map((s) => s.state)).toEqual(["superseded", "rejected", "rejected", "active"]);
    expect(lib.activeSkill("csv-totals")?.body).toBe("Version four.");
  });

  it("refuses an invalid SKILL.md or another team's scope, storing nothing", async () => {
    const before = await tk.t.db.improvement.count();
    expect((await toolError(proposeSkill(lib, gate(), runId, "---\nname: x\n---\n"))).message).toMatch(
      /^The SKILL.md is not valid; fix every problem and propose again: description is required.*line 2: name "x" is not valid.*line 4: the body is empty/,
    );
    expect((await toolError(proposeSkill(lib, gate(), runId, skillMd("other-team", { teams: [p.betaId] })))).message).toBe(
      `scope.teams must be [${teamId}]: your run's team`,
    );
    expect(await tk.t.db.improvement.count()).toBe(before);
  });

  it("takes only the SKILL.md from the author: no verdict can come with it", () => {
    const tool = proposeSkillTool(lib, gate());
    expect(tool.args.safeParse({ skillMd: "x", review: { verdict: "approve" } }).success).toBe(false);
    expect(tool.args.safeParse({ skillMd: "x" }).success).toBe(true);
  });
});

describe("a reviewer of another family", () => {
  const skill = () => readSkillMd(skillMd("csv-review"));

  it("asks a model of another family than the author's through the judge task class, and uses its trigger answers", async () => {
    world.reset();
    world.servers.beta.enqueue(
      says(
        JSON.stringify({
          verdict: "reject",
          reasons: ["Too vague."],
          triggers: [{ goal: "Sum the amount column of sales.csv", applies: false }],
        }),
      ),
    );
    const review = await reviewSkill(
      { db: tk.t.db, router: world.router },
      { skill: skill(), source: skillMd("csv-review"), authorModel: "alpha/a1", teamId: null },
    );
    expect(world.asked("beta")).toEqual(["b1"]);
    expect(world.asked("alpha")).toEqual([]);
    expect(review).toMatchObject({ verdict: "reject", passed: false, reviewer: { model: "beta/b1", family: "beta", scripted: false } });
    expect(review.triggers[0]).toEqual({ goal: "Sum the amount column of sales.csv", expected: true, applies: false, by: "reviewer" });
    expect(review.reasons).toEqual([
      "Too vague.",
      'Trigger check (reviewer): the skill should apply but does not for the goal "Sum the amount column of sales.csv"',
    ]);
    const sent = messagesOf(world.servers.beta.requests.find((r) => r.method === "POST")!.body as never);
    expect(sent.user).toContain("<skill>");
    expect(sent.user).toContain('- "Write a haiku about autumn leaves"');
  });

  it("rejects, never falls back to the scripted reviewer, when a real model wrote the skill and no reviewer of another family exists", async () => {
    const only = await judgeWorld({ "alpha/a1": "alpha" });
    try {
      const review = await reviewSkill(
        { db: tk.t.db, router: only.router },
        { skill: skill(), source: skillMd("csv-review"), authorModel: "alpha/a1", teamId: null },
      );
      expect(review).toMatchObject({
        verdict: "reject",
        passed: false,
        reviewer: null,
        reasons: [expect.stringMatching(/^No reviewer could review this skill: no judge model is configured/)],
      });
    } finally {
      await only.close();
    }
  });
});

describe("load_skill", () => {
  it("returns the active skill's body to a run in scope and refuses one out of scope", async () => {
    const tool = loadSkillTool(lib);
    const ctx = (team: string | null, toolCallId: string) =>
      ({ runId, agent: { name: "demo-coder", handoffs: [] }, teamId: team, toolCallId }) as never;
    expect(await tool.execute({ name: "csv-totals" }, ctx(teamId, "t1"))).toEqual({
      skill: "csv-totals",
      version: 4,
      instructions: "Version four.",
    });
    const err = await toolError(tool.execute({ name: "csv-totals" }, ctx(p.betaId, "t2")));
    expect(err.message).toBe('There is no skill "csv-totals" for this run. Skills you can load: none.');
    expect(await tk.t.db.improvementUse.count({ where: { runId, toolCallId: "t1" } })).toBe(1);
    expect(tool.args.safeParse({ name: "" }).success).toBe(false);
  });
});
