// Agent specs as YAML (docs/agents.md): export → import is exact; import
// creates the agent or saves a new version; broken files and invalid specs
// are clear, per-field refusals that change nothing. And the line diff.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { agentPeople, agentsOf, as, specFor, type AgentPeople } from "@/test/helpers/agents";
import {
  AgentError,
  AgentSpecInput,
  createAgent,
  diffLines,
  exportAgentYaml,
  getAgent,
  importAgentYaml,
  listVersions,
  readSpecYaml,
  specToYaml,
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

const TRICKY = [
  "  starts with spaces\nthen: a colon\n- a dash\n# not a comment",
  "trailing spaces   \nand a tab\t\n\n\n",
  "\n\nleading blank lines",
  "quotes ' and \" and a \\ backslash",
  "ünïcode ✓ and a windows line\r\nend",
  "one line",
].join("\n---\n");

const counts = async () => ({
  agents: await tk.t.db.agent.count(),
  specs: await tk.t.db.agentSpec.count(),
  audit: await tk.t.db.auditEntry.count(),
});

describe("YAML", () => {
  it("export then import gives the same spec, field for field", async () => {
    const spec = specFor(p.alphaId, {
      name: "round-trip",
      description: "Has: everything",
      instructions: TRICKY,
      taskClass: "plan",
      complexity: 0.25,
      tools: ["read_file", "handoff"],
      handoffs: ["demo-specialist"],
      guardrails: { callCap: 60, costCeilingUsd: 1.5, maxRepeats: 3, maxFailingSteps: 4 },
      tier: "T2",
    });
    const created = await createAgent(agentsOf(tk), as(p.alphaOperator), spec);
    const { filename, yaml } = await exportAgentYaml(agentsOf(tk), as(p.alphaViewer), "round-trip");
    expect(filename).toBe("round-trip.agent.yaml");
    expect(yaml).toMatch(/^# Rein agent spec: round-trip, version 1\./);
    const read = AgentSpecInput.parse(readSpecYaml(yaml));
    const { version, draft, builtIn, archived, team, changeNote, createdAt, createdBy, ...fields } = created;
    expect(read).toEqual(fields);
    expect(read.instructions).toBe(TRICKY);
    // Imported back over itself, it is a new version equal to the first.
    const imported = await importAgentYaml(agentsOf(tk), as(p.alphaOperator, "cli"), yaml, "From the repository");
    expect(imported).toMatchObject({ ...fields, version: 2, changeNote: "From the repository" });
    const audit = await tk.t.db.auditEntry.findFirstOrThrow({ where: { subject: "round-trip", kind: "agent.imported" } });
    expect(audit.channel).toBe("cli");
    expect(JSON.parse(audit.detail)).toMatchObject({ name: "round-trip", version: 2, changeNote: "From the repository" });
    // An older version exports as it was.
    expect(specToYaml(read, 1)).toBe(yaml);
  });

  it("import creates an agent that does not exist yet", async () => {
    const yaml = `name: from-file\nmodel: scripted/demo-coder\ntools: [read_file]\nteamId: ${p.alphaId}\ninstructions: |\n  Do the thing.\n`;
    const view = await importAgentYaml(agentsOf(tk), as(p.alphaOperator), yaml);
    expect(view).toMatchObject({
      name: "from-file",
      version: 1,
      instructions: "Do the thing.\n",
      changeNote: "Imported from YAML",
      team: { id: p.alphaId },
    });
    expect((await listVersions(tk.t.db, p.alphaOperator, "from-file")).length).toBe(1);
  });

  it.each([
    ["malformed YAML", "name: x\n  bad: [\n", /^The YAML cannot be read: .+ at line \d+, column \d+$/],
    ["a key given twice", "name: a\nname: b\n", /^The YAML cannot be read: Map keys must be unique/],
    ["a list instead of a spec", "- name: x\n", /it is not an agent spec/],
    ["an empty file", "\n\n", /it is empty/],
  ])("refuses %s with a clear BAD_REQUEST, changing nothing", async (_what, yaml, message) => {
    const before = await counts();
    const err = await importAgentYaml(agentsOf(tk), as(p.alphaOperator), yaml).catch((e) => e);
    expect(err).toBeInstanceOf(AgentError);
    expect(err.code).toBe("INVALID_INPUT");
    expect(err.message).toMatch(message);
    expect(err.problems.map((x: { field: string }) => x.field)).toEqual(["yaml"]);
    expect(await counts()).toEqual(before);
  });

  it("an invalid spec in the file is refused with its problems by field", async () => {
    const before = await counts();
    const yaml = `name: Bad Name\nmodel: openai/gpt-9\ntools: [foo]\nguardrails:\n  callCap: 99\nteamId: ${p.alphaId}\ninstructions: x\n`;
    const err = await importAgentYaml(agentsOf(tk), as(p.alphaOperator), yaml).catch((e) => e);
    expect(err.code).toBe("INVALID_INPUT");
    expect(err.problems).toEqual([
      { field: "name", message: "A name is 2 to 64 characters of lowercase letters, digits and dashes, starting with a letter" },
      { field: "tools.0", message: 'The tool "foo" does not exist' },
      { field: "guardrails.callCap", message: "The call cap over 50 needs a cost ceiling" },
      { field: "model", message: 'The model "openai/gpt-9" is not one this server knows; Settings › Models lists them' },
    ]);
    expect(await counts()).toEqual(before);
  });

  it("importing over a built-in is refused", async () => {
    const { yaml } = await exportAgentYaml(agentsOf(tk), as(p.admin), "demo-coder");
    const err = await importAgentYaml(agentsOf(tk), as(p.admin), yaml).catch((e) => e);
    expect(err.message).toBe("Built-in agents can't be changed; copy it to make your own");
    expect((await getAgent(tk.t.db, p.admin, "demo-coder")).version).toBe(1);
  });
});

describe("diffLines", () => {
  it.each([
    ["a\nb\nc", "a\nb\nc", "=a =b =c"],
    ["a\nb\nc", "a\nc", "=a -b =c"],
    ["a\nc", "a\nb\nc", "=a +b =c"],
    ["a\nb", "c\nd", "-a -b +c +d"],
    ["", "a", "- +a"],
    ["x\na\ny\nb\nz", "x\nb\ny\na\nz", "=x -a -y =b +y +a =z"],
  ])("%j → %j", (before, after, expected) => {
    const text = diffLines(before, after)
      .map((l) => `${{ same: "=", add: "+", del: "-" }[l.kind]}${l.text}`)
      .join(" ");
    expect(text).toBe(expected);
  });

  it("keeps every line of both sides, in order", () => {
    const before = Array.from({ length: 300 }, (_, i) => `line ${i % 17}`).join("\n");
    const after = Array.from({ length: 280 }, (_, i) => `line ${(i * 7) % 19}`).join("\n");
    const lines = diffLines(before, after);
    expect(
      lines
        .filter((l) => l.kind !== "add")
        .map((l) => l.text)
        .join("\n"),
    ).toBe(before);
    expect(
      lines
        .filter((l) => l.kind !== "del")
        .map((l) => l.text)
        .join("\n"),
    ).toBe(after);
  });
});
