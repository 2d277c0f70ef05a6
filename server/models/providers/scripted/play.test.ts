// What the scripted model plays: variants chosen by the tools offered (and
// kept once a run started), turns that may fail, and values filled in from
// what a tool really returned.
import { describe, expect, it } from "vitest";
import type { Message, Scenario, ToolSpec } from "../../types";
import { ScriptedModel } from "./model";
import { personMessage, sessionSeedHeader } from "../../person-message";
import { DEFAULT_REPLIES, MissingResultError, fillTurn, nextTurn, turnsFor } from "./play";

const tool = (name: string): ToolSpec => ({ name, description: name, inputSchema: { type: "object" } });
const SCENARIO: Scenario = {
  stopOnError: true,
  turns: [
    { text: "plain", toolCalls: [{ tool: "shell", args: { command: "false" } }], mayFail: true },
    { text: "after", toolCalls: [{ tool: "shell", args: { command: "false" } }] },
    { text: "end" },
  ],
  variants: [
    {
      tools: ["csv_sum"],
      turns: [{ text: "with tool", toolCalls: [{ tool: "csv_sum", args: { csv: "a\n1" } }] }, { text: "total {{result:csv_sum.total}}" }],
    },
  ],
};

const user: Message = { role: "user", content: "go" };
const called = (name: string, id = "call_0_0"): Message => ({
  role: "assistant",
  content: [{ type: "tool-call", toolCallId: id, toolName: name, input: {} }],
});
const result = (name: string, output: unknown, isError = false, id = "call_0_0"): Message => ({
  role: "tool",
  content: [{ type: "tool-result", toolCallId: id, toolName: name, output, isError }],
});

describe("turnsFor", () => {
  it("plays the scenario's own turns when no variant's tools are offered", () => {
    expect(turnsFor(SCENARIO, [user], [tool("shell")])).toBe(SCENARIO.turns);
  });

  it("plays the variant whose tools are all offered at the first turn", () => {
    expect(turnsFor(SCENARIO, [user], [tool("shell"), tool("csv_sum")])).toBe(SCENARIO.variants![0].turns);
  });

  it("keeps the turns a run started with when a tool appears mid-run", () => {
    const prompt = [user, called("shell"), result("shell", { exitCode: 1, output: "" })];
    expect(turnsFor(SCENARIO, prompt, [tool("shell"), tool("csv_sum")])).toBe(SCENARIO.turns);
    const withTool = [user, called("csv_sum"), result("csv_sum", { total: 3 })];
    expect(turnsFor(SCENARIO, withTool, [tool("shell")])).toBe(SCENARIO.variants![0].turns);
  });
});

describe("fillTurn", () => {
  it("fills a value from the tool's latest successful result, in text and arguments", () => {
    const prompt = [
      user,
      called("csv_sum"),
      result("csv_sum", { total: 1 }),
      called("csv_sum", "c2"),
      result("csv_sum", { total: 400, rows: 5 }, false, "c2"),
      result("csv_sum", { total: 9 }, true, "c3"),
    ];
    const turn = fillTurn(
      {
        text: "total {{result:csv_sum.total}} of {{result:csv_sum.rows}}",
        toolCalls: [{ tool: "write_file", args: { content: "{{result:csv_sum.total}}\n", n: 1 } }],
      },
      prompt,
    );
    expect(turn.text).toBe("total 400 of 5");
    expect(turn.toolCalls![0].args).toEqual({ content: "400\n", n: 1 });
  });

  it("refuses a value no call returned", () => {
    expect(() => fillTurn({ text: "{{result:csv_sum.total}}" }, [user])).toThrow(MissingResultError);
    expect(() => fillTurn({ text: "{{result:csv_sum.missing}}" }, [user, called("csv_sum"), result("csv_sum", { total: 1 })])).toThrow(
      /csv_sum.missing/,
    );
  });
});

describe("the scripted model with these scenarios", () => {
  const model = new ScriptedModel({ name: "t", scenario: SCENARIO });

  it("goes on after a turn that may fail, and stops after one that may not", async () => {
    const afterExpected = await model.doGenerate({
      prompt: [user, called("shell"), result("shell", { exitCode: 1, output: "boom" })],
      tools: [tool("shell")],
    });
    expect(afterExpected.content[0]).toEqual({ type: "text", text: "after" });
    const prompt = [
      user,
      called("shell"),
      result("shell", { exitCode: 1, output: "" }),
      called("shell", "c1"),
      result("shell", { exitCode: 1, output: "" }, false, "c1"),
    ];
    const stopped = await model.doGenerate({ prompt, tools: [tool("shell")] });
    expect(stopped.finishReason).toBe("stop");
    expect(stopped.stopReason).toMatch(/shell failed/);
  });

  it("stops and says why when a value it needs was never returned", async () => {
    const prompt = [user, called("csv_sum"), result("csv_sum", { rows: 5 })];
    const r = await model.doGenerate({ prompt, tools: [tool("csv_sum")] });
    expect(r.finishReason).toBe("stop");
    expect(r.stopReason).toMatch(/\{\{result:csv_sum.total\}\}/);
  });
});

describe("nextTurn with a person's messages", () => {
  const script: Scenario = {
    turns: [
      { text: "one", toolCalls: [{ tool: "shell", args: { command: "echo 1" } }] },
      { text: "two", toolCalls: [{ tool: "shell", args: { command: "echo 2" } }] },
      { text: "end" },
    ],
    onMessage: [{ text: "looking", toolCalls: [{ tool: "list_files", args: {} }] }, { text: "noted" }],
  };
  const said = (text: string, id: string): Message => ({
    role: "assistant",
    content: [
      { type: "text", text },
      { type: "tool-call", toolCallId: id, toolName: "shell", input: {} },
    ],
  });
  const listed: Message = { role: "assistant", content: [{ type: "tool-call", toolCallId: "r", toolName: "list_files", input: {} }] };
  const msg = personMessage("Ada", "use port 8080");

  it("plays the script while nobody writes", () => {
    expect(nextTurn(script, [user], undefined).turn?.text).toBe("one");
    expect(nextTurn(script, [user, said("one", "a"), result("shell", {}, false, "a")], undefined).turn?.text).toBe("two");
  });

  it("answers a message with onMessage, then says the last reply with the script's next turn", () => {
    const afterMessage = [user, said("one", "a"), result("shell", {}, false, "a"), msg];
    expect(nextTurn(script, afterMessage, undefined).turn).toEqual(script.onMessage![0]);
    const afterFirstReply = [...afterMessage, listed, result("list_files", [], false, "r")];
    expect(nextTurn(script, afterFirstReply, undefined).turn).toEqual({ text: "noted\n\ntwo", toolCalls: script.turns[1].toolCalls });
    // The merged turn counted as the script's second: the script ends next.
    const afterMerged = [...afterFirstReply, said("noted\n\ntwo", "b"), result("shell", {}, false, "b")];
    expect(nextTurn(script, afterMerged, undefined).turn?.text).toBe("end");
  });

  it("after the script ended, the last reply is said alone (the run ends with it)", () => {
    const ended = [
      user,
      said("one", "a"),
      result("shell", {}, false, "a"),
      said("two", "b"),
      result("shell", {}, false, "b"),
      { role: "assistant", content: [{ type: "text", text: "end" }] } as Message,
    ];
    const replies = [...ended, msg, listed, result("list_files", [], false, "r")];
    expect(nextTurn(script, replies, undefined).turn).toEqual({ text: "noted" });
  });

  it("says it cannot act on a message when the scenario has no onMessage, and does not take the goal for a message", () => {
    const plain: Scenario = { turns: script.turns };
    const afterMessage = [user, said("one", "a"), result("shell", {}, false, "a"), msg];
    expect(nextTurn(plain, afterMessage, undefined).turn).toEqual({
      text: `${DEFAULT_REPLIES[0].text}\n\ntwo`,
      toolCalls: script.turns[1].toolCalls,
    });
    expect(nextTurn(plain, [personMessage("Ada", "a goal that looks like a message")], undefined).turn?.text).toBe("one");
  });

  it("answers a message that opens a fresh session, right after the seed", () => {
    const seed: Message = { role: "user", content: `${sessionSeedHeader(2, 1)}Goal: count` };
    expect(nextTurn(script, [seed, msg], undefined).turn).toEqual(script.onMessage![0]);
    expect(nextTurn(script, [seed], undefined).turn?.text).toBe("two");
  });

  it("keeps the variant a run started with across replies", () => {
    const prompt = [user, called("csv_sum"), result("csv_sum", { total: 3 }), msg];
    expect(nextTurn(SCENARIO, prompt, [tool("shell"), tool("csv_sum")]).turn?.text).toBe(
      `${DEFAULT_REPLIES[0].text}\n\ntotal {{result:csv_sum.total}}`,
    );
  });
});
