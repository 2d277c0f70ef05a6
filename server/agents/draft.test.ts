// Runs and spec versions (docs/agents.md): "Try it" runs an unsaved draft
// stored as a negative version, never listed; and a run keeps the version it
// started with when a newer one is saved while it waits for a person.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { agentPeople, agentsOf, as, specFor, type AgentPeople } from "@/test/helpers/agents";
import { waitFor } from "@/test/helpers/wait";
import { createRun, type RunEventRecord } from "@/server/kernel";
import type { LanguageModel, ModelRouter } from "@/server/models";
import { AgentError, createAgent, getAgent, listAgents, listVersions, saveAgent, setArchived, tryDraft } from "./index";

let tk: TestKernel;
let p: AgentPeople;
/** The system prompt of every model call, in order (one run at a time in these tests). */
const prompts: string[] = [];

/** Wraps the kernel's router so each call's system prompt is kept. */
function recordPrompts(router: ModelRouter): ModelRouter {
  const keep = (model: LanguageModel): LanguageModel => ({
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    family: model.family,
    doGenerate: (options) => {
      note(options);
      return model.doGenerate(options);
    },
    doStream: (options) => {
      note(options);
      return model.doStream(options);
    },
  });
  const note = (options: Parameters<LanguageModel["doGenerate"]>[0]) => {
    const system = options.prompt.find((m) => m.role === "system");
    prompts.push(typeof system?.content === "string" ? system.content : JSON.stringify(system?.content));
  };
  return {
    resolve: (request) => {
      const resolved = router.resolve(request);
      return { ...resolved, model: keep(resolved.model), fallbacks: resolved.fallbacks?.map((f) => ({ ...f, model: keep(f.model) })) };
    },
    knownModels: () => router.knownModels?.() ?? [],
  };
}

beforeAll(async () => {
  tk = await createTestKernel({ hitl: true });
  p = await agentPeople(tk);
  tk.kernel.deps.router = recordPrompts(tk.kernel.deps.router);
}, 60_000);

afterAll(async () => {
  await tk?.cleanup();
});

const events = (runId: string) => tk.kernel.store.listEvents(runId, 0, 10_000);
const ofType = (all: RunEventRecord[], type: string) => all.filter((e) => e.type === type).map((e) => e.payload as Record<string, any>);

describe("tryDraft", () => {
  it("runs a brand-new agent's draft as version -1; it shows up nowhere as an agent or a version", async () => {
    const spec = specFor(p.alphaId, { name: "fresh-idea", model: "scripted/demo-coder", tools: [] });
    const run = await tryDraft(agentsOf(tk), as(p.alphaOperator), { spec, goal: "Try it" });
    expect(run).toMatchObject({ agentName: "fresh-idea", agentVersion: -1, agentDraft: true });
    const created = ofType(await events(run.id), "run.created")[0];
    expect(created).toMatchObject({ agent: "fresh-idea", agentVersion: -1 });
    const row = await tk.t.db.agentSpec.findUniqueOrThrow({ where: { name_version: { name: "fresh-idea", version: -1 } } });
    expect(row).toMatchObject({ draft: true, instructions: spec.instructions, createdById: p.alphaOperator.userId });
    expect((await listAgents(tk.t.db, p.admin, { includeArchived: true })).map((a) => a.name)).not.toContain("fresh-idea");
    expect((await getAgent(tk.t.db, p.admin, "fresh-idea").catch((e) => e)).code).toBe("NOT_FOUND");
    expect(await tk.kernel.specs.get("fresh-idea")).toBeNull();
    // It cannot be launched by name: only its draft exists.
    await expect(createRun(tk.kernel, { goal: "g", agent: "fresh-idea" }, p.alphaOperator)).rejects.toThrow(/Unknown agent "fresh-idea"/);
    await tk.settle(run.id);
    // Its name is still free to create.
    expect((await createAgent(agentsOf(tk), as(p.alphaOperator), spec)).version).toBe(1);
  });

  it("a saved agent's drafts count down, keep the exact spec, and never become versions", async () => {
    await createAgent(agentsOf(tk), as(p.alphaOperator), specFor(p.alphaId, { name: "tinker", instructions: "Saved way." }));
    const scenario = { name: "tinker", model: "scripted/demo-coder", tools: [], teamId: p.alphaId };
    prompts.length = 0;
    const first = await tryDraft(agentsOf(tk), as(p.alphaOperator), { spec: { ...scenario, instructions: "Draft one." }, goal: "g" });
    await tk.settle(first.id);
    const second = await tryDraft(agentsOf(tk), as(p.alphaOperator), { spec: { ...scenario, instructions: "Draft two." }, goal: "g" });
    await tk.settle(second.id);
    expect([first.agentVersion, second.agentVersion]).toEqual([-1, -2]);
    expect([...new Set(prompts.map((s) => s.split("\n")[0]))]).toEqual(["Draft one.", "Draft two."]);
    expect((await listVersions(tk.t.db, p.alphaOperator, "tinker")).map((v) => v.version)).toEqual([1]);
    expect((await getAgent(tk.t.db, p.alphaOperator, "tinker")).instructions).toBe("Saved way.");
    expect((await tk.kernel.specs.get("tinker"))?.version).toBe(1);
    // A save after drafts is version 2, not -1 + 1.
    expect(
      (await saveAgent(agentsOf(tk), as(p.alphaOperator), { name: "tinker", spec: { ...scenario, instructions: "Second." } })).version,
    ).toBe(2);
  });

  it("drafts tried at the same moment each get their own version", async () => {
    const spec = specFor(p.alphaId, { name: "busy-idea", tools: [] });
    const runs = await Promise.all(
      [1, 2, 3].map((i) => tryDraft(agentsOf(tk), as(p.alphaOperator), { spec: { ...spec, instructions: `Try ${i}.` }, goal: "g" })),
    );
    expect(runs.map((r) => r.agentVersion).sort((a, b) => a - b)).toEqual([-3, -2, -1]);
    for (const run of runs) await tk.settle(run.id);
  });

  it("refuses a draft with problems, of a built-in, of an archived agent, or of another team's agent, creating no run", async () => {
    const before = { runs: await tk.t.db.run.count(), specs: await tk.t.db.agentSpec.count() };
    const bad = await tryDraft(agentsOf(tk), as(p.alphaOperator), {
      spec: specFor(p.alphaId, { name: "broken", tools: ["foo"] }),
      goal: "g",
    }).catch((e) => e);
    expect(bad).toBeInstanceOf(AgentError);
    expect(bad.problems).toEqual([{ field: "tools.0", message: 'The tool "foo" does not exist' }]);
    const builtIn = await tryDraft(agentsOf(tk), as(p.admin), { spec: specFor(null, { name: "demo-coder" }), goal: "g" }).catch((e) => e);
    expect(builtIn.message).toBe("Built-in agents can't be changed; copy it to make your own");
    await createAgent(agentsOf(tk), as(p.alphaOperator), specFor(p.alphaId, { name: "shelved" }));
    await setArchived(agentsOf(tk), as(p.alphaOperator), "shelved", true);
    expect(
      (await tryDraft(agentsOf(tk), as(p.alphaOperator), { spec: specFor(p.alphaId, { name: "shelved" }), goal: "g" }).catch((e) => e))
        .message,
    ).toMatch(/archived/);
    const other = await tryDraft(agentsOf(tk), as(p.betaOperator), { spec: specFor(p.betaId, { name: "tinker" }), goal: "g" }).catch(
      (e) => e,
    );
    expect(other.problems).toEqual([{ field: "name", message: 'The name "tinker" is taken; pick another' }]);
    const viewer = await tryDraft(agentsOf(tk), as(p.alphaViewer), { spec: specFor(p.alphaId, { name: "tinker" }), goal: "g" }).catch(
      (e) => e,
    );
    expect(viewer).toBeInstanceOf(AgentError);
    expect(await tk.t.db.run.count()).toBe(before.runs);
    expect(await tk.t.db.agentSpec.count()).toBe(before.specs + 1); // shelved's version 1
  });
});

describe("a run keeps the spec version it started with", () => {
  it("version 2 saved while a run of version 1 waits for a person: the run goes on with version 1's instructions and tools", async () => {
    const deps = agentsOf(tk);
    prompts.length = 0;
    await createAgent(
      deps,
      as(p.alphaOperator),
      specFor(p.alphaId, { name: "steady", instructions: "VERSION ONE: write the note.", tools: ["ask_human", "write_file"] }),
    );
    const run = await createRun(
      tk.kernel,
      {
        goal: "Write a note",
        agent: "steady",
        scenario: {
          stopOnError: true,
          turns: [
            { toolCalls: [{ tool: "ask_human", args: { kind: "approve", question: "Hold on" } }] },
            { toolCalls: [{ tool: "write_file", args: { path: "note.txt", content: "hello\n" } }] },
            { text: "Done." },
          ],
        },
      },
      p.alphaOperator,
    );
    expect(run.agentVersion).toBe(1);
    const request = await waitFor(async () => {
      const status = (await tk.t.db.run.findUniqueOrThrow({ where: { id: run.id } })).status;
      return status === "waiting_human" ? tk.t.db.humanRequest.findFirst({ where: { runId: run.id, state: "PENDING" } }) : null;
    }, "the run to wait for a person");
    // Version 2 drops write_file and says something else.
    const v2 = await saveAgent(deps, as(p.alphaOperator), {
      name: "steady",
      spec: specFor(p.alphaId, { name: "steady", instructions: "VERSION TWO: only ask.", tools: ["ask_human"] }),
      baseVersion: 1,
    });
    expect(v2.version).toBe(2);
    await tk.hitl!.broker.decide(
      request!.id,
      { id: tk.actors.approver.userId, name: "Approver", role: "approver" },
      { decision: "approve" },
      "inbox",
    );
    expect(await tk.settle(run.id)).toBe("succeeded");
    const written = ofType(await events(run.id), "tool.result").find((r) => r.tool === "write_file");
    expect(written).toMatchObject({ ok: true });
    // This run's calls (another test's run may still be finishing its last call).
    const seen = prompts.filter((s) => s.startsWith("VERSION"));
    expect(seen.length).toBe(3);
    for (const system of seen) {
      expect(system).toMatch(/^VERSION ONE/);
      expect(system).not.toContain("VERSION TWO");
    }
    // A new run takes version 2.
    prompts.length = 0;
    const next = await createRun(tk.kernel, { goal: "again", agent: "steady", scenario: [{ text: "ok" }] }, p.alphaOperator);
    expect(next.agentVersion).toBe(2);
    await tk.settle(next.id);
    expect(prompts[0]).toMatch(/^VERSION TWO/);
  });
});
