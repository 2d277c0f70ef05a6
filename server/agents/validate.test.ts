// validateAgentSpec (docs/agents.md): one test per rule, each problem by
// field and in words; every problem comes back at once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { agentPeople, agentsOf, as, specFor, type AgentPeople } from "@/test/helpers/agents";
import { defaultTierSettings, saveTierSettings } from "@/server/tiers";
import { putSecret } from "@/server/secrets";
import { createAgent, setArchived, validateAgentSpec } from "./index";
import type { Actor } from "@/server/identity";

let tk: TestKernel;
let p: AgentPeople;

beforeAll(async () => {
  tk = await createTestKernel({ secrets: true });
  p = await agentPeople(tk);
  await putSecret(tk.t.db, tk.keyring!, { name: "DEPLOY_TOKEN", value: "v", actor: null });
  const deps = agentsOf(tk);
  await createAgent(deps, as(p.alphaOperator), specFor(p.alphaId, { name: "alpha-helper" }));
  await createAgent(deps, as(p.betaOperator), specFor(p.betaId, { name: "beta-helper" }));
  await createAgent(deps, as(p.alphaOperator), specFor(p.alphaId, { name: "alpha-retired" }));
  await setArchived(deps, as(p.alphaOperator), "alpha-retired", true);
}, 60_000);

afterAll(async () => {
  await tk?.cleanup();
});

const problemsOf = async (spec: unknown, actor: Actor = p.alphaOperator) => (await validateAgentSpec(agentsOf(tk), spec, actor)).problems;

describe("validateAgentSpec", () => {
  it("a good spec has no problems and comes back with its defaults", async () => {
    const { spec, problems } = await validateAgentSpec(agentsOf(tk), specFor(p.alphaId), p.alphaOperator);
    expect(problems).toEqual([]);
    expect(spec).toEqual({
      ...specFor(p.alphaId),
      description: "",
      taskClass: "code",
      handoffs: [],
      guardrails: {},
      tier: "T1",
      secrets: [],
    });
  });

  // [what, changes to the good spec, the field, the words]
  const RULES: Array<[string, Record<string, unknown>, string, RegExp]> = [
    [
      "a name that is not a slug",
      { name: "Helper Bot" },
      "name",
      /2 to 64 characters of lowercase letters, digits and dashes, starting with a letter/,
    ],
    ["a name starting with a digit", { name: "9bot" }, "name", /starting with a letter/],
    ["a one-letter name", { name: "a" }, "name", /2 to 64 characters/],
    ["a name another agent has", { name: "beta-helper" }, "name", /The name "beta-helper" is taken; pick another/],
    ["a description over 500 characters", { description: "x".repeat(501) }, "description", /The description is longer than 500 characters/],
    ["no instructions", { instructions: "  \n" }, "instructions", /Write the agent's instructions/],
    [
      "instructions over 50,000 characters",
      { instructions: "x".repeat(50_001) },
      "instructions",
      /The instructions are longer than 50,000 characters/,
    ],
    ["a model without its provider", { model: "gpt-4.1" }, "model", /Name a model as <provider>\/<model id>/],
    ["a model the server does not know", { model: "openai/gpt-9" }, "model", /The model "openai\/gpt-9" is not one this server knows/],
    ["a scripted scenario that does not exist", { model: "scripted/nope" }, "model", /not one this server knows/],
    ["an unknown task class", { taskClass: "write" }, "taskClass", /The task class is one of plan, code, classify, summarize, judge/],
    ["complexity above 1", { complexity: 1.5 }, "complexity", /Complexity is a number from 0 to 1/],
    ["a tool that does not exist", { tools: ["read_file", "foo"] }, "tools.1", /The tool "foo" does not exist/],
    ["a tool listed twice", { tools: ["read_file", "read_file"] }, "tools.1", /The tool "read_file" is listed twice/],
    [
      "a handoff to an agent that does not exist",
      { tools: ["handoff"], handoffs: ["deploy-bot"] },
      "handoffs.0",
      /"deploy-bot" is not an agent you can hand off to/,
    ],
    [
      "a handoff to another team's agent",
      { tools: ["handoff"], handoffs: ["beta-helper"] },
      "handoffs.0",
      /"beta-helper" is not an agent you can hand off to/,
    ],
    ["a handoff to itself", { tools: ["handoff"], handoffs: ["helper-bot"] }, "handoffs.0", /An agent cannot hand off to itself/],
    ["a handoff to an archived agent", { tools: ["handoff"], handoffs: ["alpha-retired"] }, "handoffs.0", /"alpha-retired" is archived/],
    ["a handoff without the handoff tool", { handoffs: ["alpha-helper"] }, "handoffs", /Handing off needs the "handoff" tool/],
    ["a call cap of 0", { guardrails: { callCap: 0 } }, "guardrails.callCap", /The call cap is a whole number from 1 to 500/],
    [
      "a call cap over 50 without a cost ceiling",
      { guardrails: { callCap: 80 } },
      "guardrails.callCap",
      /The call cap over 50 needs a cost ceiling/,
    ],
    [
      "a cost ceiling of 0",
      { guardrails: { costCeilingUsd: 0 } },
      "guardrails.costCeilingUsd",
      /The cost ceiling is an amount in USD above 0/,
    ],
    [
      "a repeat limit of 1",
      { guardrails: { maxRepeats: 1 } },
      "guardrails.maxRepeats",
      /The repeat limit is 0 \(off\) or a whole number from 2 to 50/,
    ],
    ["a name the pages use", { name: "new" }, "name", /"new" and "import" are words the Agents pages use/],
    [
      "a failing-step limit of 2.5",
      { guardrails: { maxFailingSteps: 2.5 } },
      "guardrails.maxFailingSteps",
      /The failing-step limit is 0 \(off\) or a whole number from 2 to 50/,
    ],
    ["a guardrail Rein does not have", { guardrails: { maxTokens: 5 } }, "guardrails", /Rein has no guardrail called "maxTokens"/],
    ["a tier that does not exist", { tier: "T9" }, "tier", /The tier is one of T0, T1, T2/],
    ["a tier that is turned off", { tier: "T3" }, "tier", /The tier T3 \(remote machine\) is turned off in Settings › Tiers/],
    ["a secret that does not exist", { secrets: ["NOPE"] }, "secrets.0", /There is no secret named "NOPE"/],
    ["a secret listed twice", { secrets: ["DEPLOY_TOKEN", "DEPLOY_TOKEN"] }, "secrets.1", /The secret "DEPLOY_TOKEN" is listed twice/],
    ["everyone's agent from a non-admin", { teamId: null }, "teamId", /Only an admin can share an agent with everyone/],
    ["a team the author is not in", { teamId: "beta" }, "teamId", /Pick one of your teams/],
    ["a setting Rein does not have", { instruction: "typo" }, "spec", /An agent spec has no setting called "instruction"/],
  ];

  it.each(RULES)("refuses %s", async (_what, change, field, message) => {
    const spec = { ...specFor(p.alphaId), ...change };
    if (change.teamId === "beta") spec.teamId = p.betaId;
    const problems = await problemsOf(spec);
    const hit = problems.find((x) => x.field === field);
    expect(hit, JSON.stringify(problems)).toBeDefined();
    expect(hit!.message).toMatch(message);
    // In words: no field names or codes in the message.
    expect(hit!.message).not.toMatch(/invalid_type|too_small|callCap|costCeilingUsd|teamId/);
  });

  it("the call cap over 50 is fine with a cost ceiling", async () => {
    expect(await problemsOf(specFor(p.alphaId, { guardrails: { callCap: 80, costCeilingUsd: 2 } }))).toEqual([]);
  });

  it("a handoff to an everyone's agent or one of its own team is fine", async () => {
    expect(await problemsOf(specFor(p.alphaId, { tools: ["handoff"], handoffs: ["demo-specialist", "alpha-helper"] }))).toEqual([]);
  });

  it("an admin's everyone's agent may not hand off to one team's agent", async () => {
    const problems = await problemsOf(specFor(null, { tools: ["handoff"], handoffs: ["alpha-helper"] }), p.admin);
    expect(problems).toEqual([
      {
        field: "handoffs.0",
        message: "\"alpha-helper\" belongs to another team; an agent hands off only to its own team's agents or to everyone's",
      },
    ]);
  });

  it("a viewer of the team cannot publish to it", async () => {
    const problems = await problemsOf(specFor(p.alphaId), p.alphaViewer);
    expect(problems).toEqual([{ field: "teamId", message: "Publishing an agent to alpha needs the operator role there" }]);
  });

  it("a tier turned off in the settings is refused", async () => {
    const settings = defaultTierSettings();
    settings.T2.enabled = false;
    await saveTierSettings(tk.t.db, settings, { userId: tk.users.admin, name: "Admin" });
    try {
      expect(await problemsOf(specFor(p.alphaId, { tier: "T2" }))).toEqual([
        { field: "tier", message: "The tier T2 (desktop) is turned off in Settings › Tiers" },
      ]);
    } finally {
      await saveTierSettings(tk.t.db, defaultTierSettings(), { userId: tk.users.admin, name: "Admin" });
    }
  });

  it("reports every problem at once", async () => {
    const problems = await problemsOf({
      name: "X",
      model: "nope",
      tools: ["foo"],
      guardrails: { callCap: 99 },
      secrets: ["NOPE"],
      teamId: null,
    });
    expect(problems.map((x) => x.field).sort()).toEqual([
      "guardrails.callCap",
      "instructions",
      "model",
      "name",
      "secrets.0",
      "teamId",
      "tools.0",
    ]);
  });

  it("something that is not a spec at all is one clear problem", async () => {
    expect(await problemsOf("name: x")).toEqual([{ field: "spec", message: "An agent spec is a set of named settings" }]);
  });

  it("when editing, the agent's own name is fine", async () => {
    expect(await problemsOf(specFor(p.alphaId, { name: "alpha-helper" }))).toEqual([]);
    // ... but not for someone who cannot see it.
    expect((await problemsOf(specFor(p.betaId, { name: "alpha-helper" }), p.betaOperator)).map((x) => x.field)).toEqual(["name"]);
  });
});
