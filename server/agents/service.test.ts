// The agents service on a real database (docs/agents.md): versions with
// change notes, diffs, rollback, archive, copies of built-ins, who sees what,
// conflicts, the audit log, and what runs take from a spec.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { agentPeople, agentsOf, as, specFor, type AgentPeople } from "@/test/helpers/agents";
import { ArchivedAgentError, UnknownAgentError, createRun } from "@/server/kernel";
import {
  AgentError,
  copyAgent,
  createAgent,
  diffVersions,
  getAgent,
  listAgents,
  listVersions,
  rollbackAgent,
  saveAgent,
  setArchived,
} from "./index";

let tk: TestKernel;
let p: AgentPeople;

beforeAll(async () => {
  tk = await createTestKernel();
  p = await agentPeople(tk);
}, 60_000);

afterAll(async () => {
  await tk?.cleanup();
});

async function failure(promise: Promise<unknown>): Promise<AgentError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(AgentError);
    return err as AgentError;
  }
  throw new Error("expected the call to fail");
}

const deps = () => agentsOf(tk);

describe("versions", () => {
  it("create is version 1; save adds versions with their notes and authors; get and versions show them", async () => {
    const v1 = await createAgent(deps(), as(p.alphaOperator), specFor(p.alphaId, { name: "writer", description: "Writes" }), "First cut");
    expect(v1).toMatchObject({
      name: "writer",
      version: 1,
      draft: false,
      builtIn: false,
      archived: false,
      team: { id: p.alphaId, name: "alpha" },
      changeNote: "First cut",
      createdBy: p.alphaOperator.name,
    });
    const v2 = await saveAgent(deps(), as(p.alphaOperator), {
      name: "writer",
      spec: specFor(p.alphaId, { name: "writer", description: "Writes well" }),
      changeNote: "Better words",
      baseVersion: 1,
    });
    expect(v2).toMatchObject({ version: 2, description: "Writes well", changeNote: "Better words" });
    expect((await getAgent(tk.t.db, p.alphaViewer, "writer", 1)).description).toBe("Writes");
    expect((await listVersions(tk.t.db, p.alphaViewer, "writer")).map((v) => [v.version, v.changeNote, v.createdBy])).toEqual([
      [2, "Better words", p.alphaOperator.name],
      [1, "First cut", p.alphaOperator.name],
    ]);
    const audit = await tk.t.db.auditEntry.findMany({ where: { subject: "writer" }, orderBy: { id: "asc" } });
    expect(audit.map((a) => [a.kind, a.actorId, a.channel, JSON.parse(a.detail).version, JSON.parse(a.detail).changeNote])).toEqual([
      ["agent.created", p.alphaOperator.userId, "admin", 1, "First cut"],
      ["agent.version_saved", p.alphaOperator.userId, "admin", 2, "Better words"],
    ]);
  });

  it("a save made on an older version is a CONFLICT and saves nothing", async () => {
    await createAgent(deps(), as(p.alphaOperator), specFor(p.alphaId, { name: "racer" }));
    await saveAgent(deps(), as(p.alphaOperator), {
      name: "racer",
      spec: specFor(p.alphaId, { name: "racer", description: "mine" }),
      baseVersion: 1,
    });
    const err = await failure(
      saveAgent(deps(), as(p.alphaOperator), {
        name: "racer",
        spec: specFor(p.alphaId, { name: "racer", description: "theirs" }),
        baseVersion: 1,
      }),
    );
    expect(err.code).toBe("CONFLICT");
    expect(err.message).toBe("racer has changed since version 1: version 2 is the latest. Reload it and make your change again");
    expect((await listVersions(tk.t.db, p.alphaOperator, "racer")).length).toBe(2);
  });

  it("a save with problems is BAD_REQUEST with every problem by field, and the name cannot change", async () => {
    await createAgent(deps(), as(p.alphaOperator), specFor(p.alphaId, { name: "stable" }));
    const err = await failure(
      saveAgent(deps(), as(p.alphaOperator), { name: "stable", spec: specFor(p.alphaId, { name: "renamed", tools: ["foo"] }) }),
    );
    expect(err.code).toBe("INVALID_INPUT");
    expect(err.problems).toEqual([
      { field: "name", message: "The name stays stable; copy the agent to give it another name" },
      { field: "tools.0", message: 'The tool "foo" does not exist' },
    ]);
    expect(err.message).toContain('The tool "foo" does not exist');
    expect((await listVersions(tk.t.db, p.alphaOperator, "stable")).length).toBe(1);
  });

  it("diff lists the changed fields with labels and the instructions line by line", async () => {
    await createAgent(
      deps(),
      as(p.alphaOperator),
      specFor(p.alphaId, { name: "differ", instructions: "Read the task.\nDo it.\nReport.", guardrails: { maxRepeats: 3 } }),
    );
    await saveAgent(deps(), as(p.alphaOperator), {
      name: "differ",
      spec: specFor(p.alphaId, {
        name: "differ",
        instructions: "Read the task.\nPlan it.\nDo it.\nReport.",
        model: "scripted/demo-team",
        tools: ["read_file", "write_file"],
        guardrails: { maxRepeats: 4, callCap: 10 },
      }),
    });
    const diff = await diffVersions(tk.t.db, p.alphaViewer, "differ", 1, 2);
    expect(diff.changes).toEqual([
      { field: "model", label: "Model", before: "scripted/demo-coder", after: "scripted/demo-team" },
      { field: "tools", label: "Tools", before: "read_file", after: "read_file, write_file" },
      { field: "guardrails.callCap", label: "Call cap", before: "(not set)", after: "10" },
      { field: "guardrails.maxRepeats", label: "Repeat limit", before: "3", after: "4" },
    ]);
    expect(diff.instructions).toEqual([
      { kind: "same", text: "Read the task." },
      { kind: "add", text: "Plan it." },
      { kind: "same", text: "Do it." },
      { kind: "same", text: "Report." },
    ]);
    expect((await diffVersions(tk.t.db, p.alphaViewer, "differ", 2, 2)).changes).toEqual([]);
    expect((await failure(diffVersions(tk.t.db, p.alphaViewer, "differ", 1, 9))).code).toBe("NOT_FOUND");
  });

  it("rollback saves a new version equal to the old one", async () => {
    await createAgent(deps(), as(p.alphaOperator), specFor(p.alphaId, { name: "roller", instructions: "Old way." }));
    await saveAgent(deps(), as(p.alphaOperator), {
      name: "roller",
      spec: specFor(p.alphaId, { name: "roller", instructions: "New way.", tools: ["read_file", "shell"] }),
    });
    const back = await rollbackAgent(deps(), as(p.alphaOperator), "roller", 1);
    expect(back).toMatchObject({ version: 3, instructions: "Old way.", tools: ["read_file"], changeNote: "Rolled back to version 1" });
    expect((await diffVersions(tk.t.db, p.alphaOperator, "roller", 1, 3)).changes).toEqual([]);
    expect((await failure(rollbackAgent(deps(), as(p.alphaOperator), "roller", 3))).message).toBe("Version 3 is already the latest");
    expect((await failure(rollbackAgent(deps(), as(p.alphaOperator), "roller", 7))).code).toBe("NOT_FOUND");
    const audit = await tk.t.db.auditEntry.findFirstOrThrow({ where: { subject: "roller", kind: "agent.rolled_back" } });
    expect(JSON.parse(audit.detail)).toMatchObject({ name: "roller", version: 3, fromVersion: 1, changeNote: "Rolled back to version 1" });
  });
});

describe("archive", () => {
  it("hides the agent from the list unless asked, refuses new runs, and unarchive brings it back", async () => {
    await createAgent(deps(), as(p.alphaOperator), specFor(p.alphaId, { name: "old-timer" }));
    expect(await setArchived(deps(), as(p.alphaOperator), "old-timer", true)).toEqual({ ok: true });
    expect((await listAgents(tk.t.db, p.alphaOperator)).map((a) => a.name)).not.toContain("old-timer");
    const all = await listAgents(tk.t.db, p.alphaOperator, { includeArchived: true });
    expect(all.find((a) => a.name === "old-timer")).toMatchObject({ archived: true, version: 1 });
    expect((await getAgent(tk.t.db, p.alphaOperator, "old-timer")).archived).toBe(true);
    const before = await tk.t.db.run.count();
    await expect(createRun(tk.kernel, { goal: "g", agent: "old-timer" }, p.alphaOperator)).rejects.toThrow(
      new ArchivedAgentError("old-timer"),
    );
    await expect(createRun(tk.kernel, { goal: "g", agent: "old-timer" }, p.alphaOperator)).rejects.toThrow(
      "The agent old-timer is archived",
    );
    expect(await tk.t.db.run.count()).toBe(before);
    await setArchived(deps(), as(p.alphaOperator), "old-timer", false);
    expect((await listAgents(tk.t.db, p.alphaOperator)).map((a) => a.name)).toContain("old-timer");
    const kinds = (await tk.t.db.auditEntry.findMany({ where: { subject: "old-timer" }, orderBy: { id: "asc" } })).map((a) => a.kind);
    expect(kinds).toEqual(["agent.created", "agent.archived", "agent.unarchived"]);
  });

  it("a viewer of the team, and an operator of another, cannot archive it", async () => {
    await createAgent(deps(), as(p.alphaOperator), specFor(p.alphaId, { name: "keeper" }));
    const viewer = await failure(setArchived(deps(), as(p.alphaViewer), "keeper", true));
    expect(viewer.code).toBe("FORBIDDEN");
    expect(viewer.message).toBe("Archiving keeper needs the operator role in its team");
    expect((await failure(setArchived(deps(), as(p.betaOperator), "keeper", true))).code).toBe("NOT_FOUND");
    expect((await getAgent(tk.t.db, p.admin, "keeper")).archived).toBe(false);
  });
});

describe("built-ins", () => {
  it("can be copied into a team, never saved or rolled back", async () => {
    const copy = await copyAgent(deps(), as(p.alphaOperator), { from: "demo-coder", name: "my-coder" });
    const original = await getAgent(tk.t.db, p.alphaOperator, "demo-coder");
    expect(copy).toMatchObject({
      name: "my-coder",
      version: 1,
      builtIn: false,
      team: { id: p.alphaId },
      changeNote: `Copied from demo-coder version ${original.version}`,
    });
    expect({ ...copy, name: "demo-coder" }).toMatchObject({
      instructions: original.instructions,
      tools: original.tools,
      model: original.model,
      tier: original.tier,
    });
    const save = await failure(saveAgent(deps(), as(p.admin), { name: "demo-coder", spec: { ...original, description: "mine" } }));
    expect(save.code).toBe("INVALID_INPUT");
    expect(save.message).toBe("Built-in agents can't be changed; copy it to make your own");
    expect((await failure(rollbackAgent(deps(), as(p.admin), "demo-coder", 1))).message).toBe(
      "Built-in agents can't be changed; copy it to make your own",
    );
    expect((await getAgent(tk.t.db, p.admin, "demo-coder")).version).toBe(original.version);
    // The copy is the operator's to change.
    expect(
      (await saveAgent(deps(), as(p.alphaOperator), { name: "my-coder", spec: { ...specFor(p.alphaId), name: "my-coder" } })).version,
    ).toBe(2);
    const audit = await tk.t.db.auditEntry.findFirstOrThrow({ where: { subject: "my-coder", kind: "agent.copied" } });
    expect(JSON.parse(audit.detail)).toMatchObject({ from: "demo-coder", version: 1 });
  });

  it("a copy's name must be free", async () => {
    const err = await failure(copyAgent(deps(), as(p.alphaOperator), { from: "demo-coder", name: "demo-team" }));
    expect(err.problems).toEqual([{ field: "name", message: 'The name "demo-team" is taken; pick another' }]);
  });
});

describe("who sees an agent", () => {
  beforeAll(async () => {
    await createAgent(deps(), as(p.alphaOperator), specFor(p.alphaId, { name: "alpha-only" }));
  });

  it("a member of its team sees it, a member of another team does not, an admin sees all", async () => {
    expect((await listAgents(tk.t.db, p.alphaViewer)).map((a) => a.name)).toContain("alpha-only");
    expect((await listAgents(tk.t.db, p.betaOperator)).map((a) => a.name)).not.toContain("alpha-only");
    expect((await listAgents(tk.t.db, p.admin)).map((a) => a.name)).toContain("alpha-only");
    // Everyone's agents are everyone's.
    expect((await listAgents(tk.t.db, p.betaOperator)).map((a) => a.name)).toContain("demo-coder");
    const hidden = await failure(getAgent(tk.t.db, p.betaOperator, "alpha-only"));
    expect(hidden.code).toBe("NOT_FOUND");
    expect(hidden.message).toBe("There is no agent named alpha-only");
    expect((await failure(listVersions(tk.t.db, p.betaOperator, "alpha-only"))).code).toBe("NOT_FOUND");
  });

  it("another team's member cannot run it by name, and is not told it exists", async () => {
    const err = await createRun(tk.kernel, { goal: "g", agent: "alpha-only" }, p.betaOperator).catch((e) => e);
    expect(err).toBeInstanceOf(UnknownAgentError);
    expect(err.message).toMatch(/^Unknown agent "alpha-only". Available agents: /);
    expect(err.message.split("Available agents: ")[1].split(", ")).not.toContain("alpha-only");
  });

  it("the list says who saved the latest version, the team and the tool count", async () => {
    const item = (await listAgents(tk.t.db, p.alphaViewer)).find((a) => a.name === "alpha-only");
    expect(item).toMatchObject({
      version: 1,
      model: "scripted/demo-coder",
      taskClass: "code",
      tier: "T1",
      team: { id: p.alphaId, name: "alpha" },
      builtIn: false,
      archived: false,
      updatedBy: p.alphaOperator.name,
      toolCount: 1,
    });
    expect((await listAgents(tk.t.db, p.alphaViewer)).find((a) => a.name === "demo-coder")).toMatchObject({
      builtIn: true,
      team: null,
      updatedBy: null,
    });
  });
});

describe("runs take their defaults from the guardrails", () => {
  it("callCap and costCeilingUsd become maxSteps and budgetUsd unless the launcher gives them", async () => {
    await createAgent(deps(), as(p.alphaOperator), specFor(p.alphaId, { name: "capped", guardrails: { callCap: 80, costCeilingUsd: 3 } }));
    const scenario = [{ text: "Done." }];
    const run = await createRun(tk.kernel, { goal: "g", agent: "capped", scenario }, p.alphaOperator);
    expect(await tk.t.db.run.findUniqueOrThrow({ where: { id: run.id }, select: { maxSteps: true, budgetUsd: true } })).toEqual({
      maxSteps: 80,
      budgetUsd: 3,
    });
    const own = await createRun(tk.kernel, { goal: "g", agent: "capped", scenario, maxSteps: 5, budgetUsd: 1 }, p.alphaOperator);
    expect(await tk.t.db.run.findUniqueOrThrow({ where: { id: own.id }, select: { maxSteps: true, budgetUsd: true } })).toEqual({
      maxSteps: 5,
      budgetUsd: 1,
    });
    const plain = await createRun(tk.kernel, { goal: "g", agent: "demo-coder", scenario }, p.alphaOperator);
    expect(await tk.t.db.run.findUniqueOrThrow({ where: { id: plain.id }, select: { maxSteps: true, budgetUsd: true } })).toEqual({
      maxSteps: 50,
      budgetUsd: null,
    });
    for (const id of [run.id, own.id, plain.id]) expect(await tk.settle(id)).toBe("succeeded");
  });
});
