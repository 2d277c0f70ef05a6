// Attack suite, issue class 3: patterns from outside never freeze the event
// loop. A provide request's schema pattern (the agent's), list_files' glob
// (the agent's), a policy pattern (an admin's, run on the agent's arguments)
// and the approver's form in the browser all meet catastrophic input here,
// with the event loop's longest stall measured.
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createRun } from "@/server/kernel";
import { evaluate, parsePolicy } from "@/server/policy";
import { BUILTIN_TOOLS, MemoryReplayCache, ToolRegistry, ToolRunner, Workspace } from "@/server/tools";
import { formFromSchema, readForm } from "@/lib/schema-form";
import { measureStalls } from "../helpers/event-loop";
import { createTestKernel, type TestKernel } from "../helpers/kernel";
import { makeTempDir } from "../helpers/db";
import { waitFor } from "../helpers/wait";

/** Far above a healthy loop's stall on a loaded machine; far below what backtracking took (seconds to minutes). */
const MAX_STALL_MS = 250;
const EVIL = "^(a+)+$";
const EVIL_INPUT = `${"a".repeat(28)}!`;

describe("a provide request whose schema pattern backtracks", () => {
  let tk: TestKernel | undefined;
  afterEach(async () => tk?.cleanup());

  it("checks the answer in linear time and refuses it, through the broker as the Inbox does", async () => {
    tk = await createTestKernel({ hitl: true });
    const scenario = {
      turns: [
        {
          toolCalls: [
            {
              tool: "ask_human",
              args: {
                kind: "provide",
                question: "Code?",
                schema: { type: "object", properties: { code: { type: "string", pattern: EVIL } }, required: ["code"] },
              },
            },
          ],
        },
        { text: "done" },
      ],
    };
    const run = await createRun(tk.kernel, { goal: "ask", agent: "demo-release", scenario }, tk.actors.operator);
    const request = await waitFor(
      () => tk!.t.db.humanRequest.findFirst({ where: { runId: run.id, kind: "provide", state: "PENDING" } }),
      "the provide request",
    );
    const operator = { id: tk.actors.operator.userId, name: tk.actors.operator.name, role: tk.actors.operator.role };
    const { result, stalls } = await measureStalls(() =>
      tk!.hitl!.broker.decide(request.id, operator, { decision: "provide", value: { code: EVIL_INPUT } }, "inbox").then(
        () => null,
        (e: Error) => e.message,
      ),
    );
    expect(result).toMatch(/code: must match/);
    expect(stalls.maxMs).toBeLessThan(MAX_STALL_MS);
    await tk.hitl!.broker.decide(request.id, operator, { decision: "provide", value: { code: "aaaa" } }, "inbox");
    expect(await tk.settle(run.id)).toBe("succeeded");
  });

  it("the approver's form in the browser never compiles the agent's pattern", async () => {
    const form = formFromSchema({ type: "object", properties: { code: { type: "string", pattern: EVIL } } });
    const { stalls } = await measureStalls(() => readForm(form, { code: EVIL_INPUT }));
    expect(stalls.maxMs).toBeLessThan(MAX_STALL_MS);
  });
});

describe("list_files with a glob that backtracks", () => {
  const root = makeTempDir("rein-attack-glob-");
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it("matches in linear time", async () => {
    const ws = new Workspace(path.join(root, "ws"));
    fs.mkdirSync(path.join(ws.root, "d"), { recursive: true });
    fs.writeFileSync(path.join(ws.root, "d", `${"a".repeat(40)}.txt`), "x");
    const runner = new ToolRunner(new ToolRegistry(BUILTIN_TOOLS), new MemoryReplayCache());
    const glob = `${"**a".repeat(9)}**b`;
    const { result, stalls } = await measureStalls(() =>
      runner.run(
        { toolCallId: "c1", toolName: "list_files", args: { pattern: glob } },
        { runId: "r", nodeId: "n", checkpointId: "cp" },
        { runId: "r", workspace: ws, agent: { name: "a", handoffs: [] }, actorId: "agent", signal: new AbortController().signal },
        ["list_files"],
      ),
    );
    expect(result.outcome).toMatchObject({ ok: true, output: { files: [] } });
    expect(stalls.maxMs).toBeLessThan(MAX_STALL_MS);
  });
});

describe("a policy pattern that backtracks, run on the agent's arguments", () => {
  it("evaluates in linear time", async () => {
    const policy = parsePolicy(
      `rules:\n  - tool: shell\n    args:\n      command: { pattern: '${EVIL}' }\n    decision: deny\n  - tool: "*"\n    decision: allow\n`,
    );
    if (!policy.ok) throw new Error(JSON.stringify(policy.errors));
    const { result, stalls } = await measureStalls(() =>
      evaluate(policy.policy, { actor: { id: "agent" }, team: null, tool: "shell", args: { command: `${"a".repeat(5000)}!` }, tier: "T1" }),
    );
    expect(result.effect).toBe("allow");
    expect(stalls.maxMs).toBeLessThan(MAX_STALL_MS);
  });
});
