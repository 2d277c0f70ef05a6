import { describe, expect, it } from "vitest";
import {
  DEFAULT_DRAFT,
  draftOf,
  fieldOf,
  formatAgentVersion,
  groupProblems,
  sameSpec,
  specOf,
  suggestCopyName,
  type AgentSpecFields,
} from "./agent-draft";

const SPEC: AgentSpecFields = {
  name: "reviewer",
  description: "Reviews pull requests",
  instructions: "# Review\nBe kind.",
  model: "scripted/demo-coder",
  taskClass: "code",
  complexity: 0.4,
  tools: ["read_file"],
  handoffs: [],
  guardrails: { callCap: 80, costCeilingUsd: 2.5 },
  tier: "T1",
  secrets: ["GITHUB_TOKEN"],
  teamId: null,
};

describe("the agent editor's draft", () => {
  it("a spec survives the form unchanged", () => {
    expect(specOf(draftOf(SPEC))).toEqual({ spec: SPEC, problems: [] });
  });

  it("a hosted agent's program survives the form; its spec sends no tools or hand-offs, and None brings Rein's back", () => {
    const hosted: AgentSpecFields = { ...SPEC, tools: [], hosted: { program: "claude-code" } };
    expect(specOf(draftOf(hosted))).toEqual({ spec: hosted, problems: [] });
    const chosen = { ...draftOf(SPEC), handoffs: ["demo-specialist"], hostedProgram: "rein-test-agent" };
    expect(specOf(chosen).spec).toMatchObject({ tools: [], handoffs: [], hosted: { program: "rein-test-agent" } });
    const none = specOf({ ...chosen, hostedProgram: "" }).spec;
    expect(none).toMatchObject({ tools: ["read_file"], handoffs: ["demo-specialist"] });
    expect(none).not.toHaveProperty("hosted");
    expect(fieldOf("hosted.program")).toBe("hosted");
  });

  it("routing by task class is the model auto; the picked model is kept for switching back", () => {
    const draft = { ...draftOf(SPEC), modelMode: "taskClass" as const };
    expect(specOf(draft).spec.model).toBe("auto");
    expect(draft.model).toBe("scripted/demo-coder");
    expect(draftOf({ ...SPEC, model: "auto" }).modelMode).toBe("taskClass");
  });

  it("blank numbers are not set; text where a number belongs is a problem on its field and left out", () => {
    const { spec, problems } = specOf({
      ...DEFAULT_DRAFT,
      name: "a",
      callCap: "lots",
      costCeilingUsd: "$3",
      maxRepeats: " ",
      complexity: "high",
    });
    expect(spec.guardrails).toEqual({ costCeilingUsd: 3 });
    expect(spec.complexity).toBeUndefined();
    expect(problems).toEqual([
      { field: "complexity", message: "must be a number, e.g. 0.7" },
      { field: "guardrails.callCap", message: "must be a whole number, e.g. 80" },
    ]);
  });

  it("a negative number says so, on every field at once, and is left out", () => {
    const { spec, problems } = specOf({
      ...DEFAULT_DRAFT,
      name: "a",
      callCap: "-5",
      costCeilingUsd: "-2",
      maxFailingSteps: "-1",
      complexity: "-.3",
    });
    expect(spec.guardrails).toEqual({});
    expect(spec.complexity).toBeUndefined();
    expect(problems).toEqual([
      { field: "complexity", message: "cannot be negative" },
      { field: "guardrails.callCap", message: "cannot be negative" },
      { field: "guardrails.costCeilingUsd", message: "cannot be negative" },
      { field: "guardrails.maxFailingSteps", message: "cannot be negative" },
    ]);
  });

  it("drafts are the same when they would save the same spec and hold the same typed text", () => {
    const a = draftOf(SPEC);
    expect(sameSpec(a, { ...a, model: "openai/gpt-4o", modelMode: "model" })).toBe(false);
    expect(sameSpec({ ...a, modelMode: "taskClass" }, { ...a, modelMode: "taskClass", model: "other/model" })).toBe(true);
    expect(sameSpec({ ...a, callCap: "x" }, { ...a, callCap: "y" })).toBe(false);
    expect(sameSpec(a, { ...a, callCap: " 80 " })).toBe(true);
  });

  it("puts each problem under its field, the deepest that fits", () => {
    expect(fieldOf("guardrails.callCap")).toBe("guardrails.callCap");
    expect(fieldOf("guardrails.other")).toBe("guardrails");
    expect(fieldOf("tools.2")).toBe("tools");
    expect(fieldOf("spec.name")).toBe("name");
    expect(fieldOf("handoffs[0]")).toBe("handoffs");
    expect(fieldOf("")).toBeNull();
    expect(fieldOf("namespace")).toBeNull();
  });

  it("groups every problem at once, the same message once", () => {
    const g = groupProblems([
      { field: "guardrails.callCap", message: "the call cap over 50 needs a cost ceiling" },
      { field: "tools.0", message: 'the tool "foo" does not exist' },
      { field: "tools.1", message: 'the tool "bar" does not exist' },
      { field: "guardrails.callCap", message: "the call cap over 50 needs a cost ceiling" },
      { field: "", message: "something about the whole spec" },
    ]);
    expect(g.byField).toEqual({
      "guardrails.callCap": ["the call cap over 50 needs a cost ceiling"],
      tools: ['the tool "foo" does not exist', 'the tool "bar" does not exist'],
    });
    expect(g.other).toEqual(["something about the whole spec"]);
    expect(g.count).toBe(4);
  });

  it("a tried draft's negative version reads as draft", () => {
    expect(formatAgentVersion(3)).toBe("v3");
    expect(formatAgentVersion(-7)).toBe("draft");
  });

  it("suggests a free name for a copy", () => {
    expect(suggestCopyName("demo-coder", ["demo-coder"])).toBe("demo-coder-copy");
    expect(suggestCopyName("demo-coder", ["demo-coder-copy", "demo-coder-copy-2"])).toBe("demo-coder-copy-3");
  });
});
