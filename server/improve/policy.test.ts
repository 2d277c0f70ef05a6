// Runtime tools and the policy (docs/improvements.md#the-policy): calls to them are
// policy-gated like any other. With no rule naming a runtime tool, the rules
// for "runtime_tool" decide (the default allows them); an admin can ask a
// person before every runtime tool, and a rule naming one tool wins.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { savePolicy } from "@/server/policy";
import type { GateCall, ToolDefinition } from "@/server/tools";
import { createTestKernel, SILENT_LOG, type TestKernel } from "@/test/helpers/kernel";
import { Improve } from "./index";

let tk: TestKernel;
let improve: Improve;
let tool: ToolDefinition;

beforeAll(async () => {
  tk = await createTestKernel({ hitl: true });
  improve = new Improve({ db: tk.t.db, kernel: tk.kernel, log: SILENT_LOG });
  await improve.start({ sweepMs: 60_000 });
  const row = await tk.t.db.improvement.create({
    data: {
      tier: 1,
      kind: "runtime_tool",
      name: "word_count",
      version: 1,
      state: "active",
      description: "Counts words",
      source: "function run(a){return a.text.split(/\\s+/).length}",
      argsSchema: JSON.stringify({ type: "object", properties: { text: { type: "string" } }, required: ["text"] }),
      replayClass: "pure",
    },
  });
  await improve.reload(row.id);
  tool = tk.kernel.deps.registry.get("word_count")!;
}, 60_000);

afterAll(async () => {
  await improve?.stop();
  await tk?.cleanup();
});

let n = 0;
function call(): GateCall {
  n++;
  return {
    tool,
    args: { text: "a b c" },
    address: { runId: "policy-run", nodeId: `1:c${n}`, checkpointId: `cp${n}` },
    ctx: {
      runId: "policy-run",
      workspace: tk.kernel.deps.workspaceFor("policy-run"),
      agent: { name: "demo-csv", handoffs: [] },
      actorId: tk.actors.operator.userId,
      teamId: null,
      tier: "T1",
      signal: new AbortController().signal,
    },
  };
}

async function withPolicy(source: string) {
  await savePolicy(tk.t.db, { source, comment: "test", actor: { id: tk.actors.admin.userId, name: "admin" } });
  tk.hitl!.policy.invalidate();
}

describe("a runtime tool's call through the policy gate", () => {
  it("is allowed by the default policy's runtime_tool rule", async () => {
    const verdict = await tk.hitl!.gate.check(call());
    expect(verdict.kind).toBe("proceed");
    expect(verdict.note?.policy).toMatchObject({ effect: "allow", level: "tool" });
  });

  it("asks a person when an admin's rule says so for every runtime tool", async () => {
    await withPolicy("rules:\n  - { tool: runtime_tool, decision: ask, ask: { role: approver } }\n");
    const verdict = await tk.hitl!.gate.check(call());
    expect(verdict.kind).toBe("wait");
  });

  it("follows a rule that names the tool before the runtime_tool rules", async () => {
    await withPolicy("rules:\n  - { tool: word_count, decision: deny }\n  - { tool: runtime_tool, decision: allow }\n");
    const verdict = await tk.hitl!.gate.check(call());
    expect(verdict).toMatchObject({ kind: "result", outcome: { ok: false, error: { code: "POLICY_DENIED" } } });
  });

  it("is denied when no rule covers it or runtime_tool", async () => {
    await withPolicy("rules:\n  - { tool: shell, decision: allow }\n");
    const verdict = await tk.hitl!.gate.check(call());
    expect(verdict).toMatchObject({ kind: "result", outcome: { ok: false, error: { code: "POLICY_DENIED" } } });
  });
});
