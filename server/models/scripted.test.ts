// The scripted model (the model fake, docs/models.md#the-scripted-model,
// docs/runs.md#scenarios), scenarios and the router.
import { describe, expect, it } from "vitest";
import {
  BUILTIN_SCENARIOS,
  GOAL_SCENARIOS,
  DefaultModelRouter,
  ScenarioSchema,
  UnknownModelError,
  countPromptTokens,
  countTokens,
  parseScenario,
  type Message,
  type Scenario,
  type StreamPart,
  type ToolSpec,
} from "./index";
import { ScriptedModel } from "./providers";

const SCENARIO: Scenario = {
  turns: [
    { text: "Hello there, I will look around." },
    {
      text: "Listing and reading.",
      toolCalls: [
        { tool: "list_files", args: { pattern: "**/*" } },
        { tool: "read_file", args: { path: "a.txt", startLine: 2 } },
        { tool: "list_files", args: { pattern: "**/*" } },
      ],
    },
    { toolCalls: [{ tool: "shell", args: { command: "echo hi" } }] },
  ],
};

const TOOLS: ToolSpec[] = [
  { name: "list_files", description: "List files", inputSchema: { type: "object", properties: { pattern: { type: "string" } } } },
];

/** A prompt with `n` assistant turns (each followed by a tool result). */
function promptWith(n: number, lastFailed = false): Message[] {
  const prompt: Message[] = [
    { role: "system", content: "You are a tester." },
    { role: "user", content: "Do the thing" },
  ];
  for (let i = 0; i < n; i++) {
    prompt.push({ role: "assistant", content: [{ type: "tool-call", toolCallId: `call_${i}_0`, toolName: "shell", input: {} }] });
    prompt.push({
      role: "tool",
      content: [{ type: "tool-result", toolCallId: `call_${i}_0`, toolName: "shell", output: {}, isError: lastFailed && i === n - 1 }],
    });
  }
  return prompt;
}

async function collect(stream: ReadableStream<StreamPart>): Promise<StreamPart[]> {
  const parts: StreamPart[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return parts;
    parts.push(value);
  }
}

async function streamOf(model: ScriptedModel, prompt: Message[], extra: { tools?: ToolSpec[]; abortSignal?: AbortSignal } = {}) {
  const { stream } = await model.doStream({ prompt, ...extra });
  return collect(stream);
}

const model = (scenario: Scenario = SCENARIO, delayMs = 0) => new ScriptedModel({ name: "test", scenario, delayMs });

describe("token counting", () => {
  it("uses a real tokenizer", () => {
    expect(countTokens("hello world")).toBe(2);
    expect(countTokens("")).toBe(0);
    expect(countTokens("hello world hello world")).toBeGreaterThan(countTokens("hello world"));
  });

  it("counts a prompt's messages with framing, and tool schemas", () => {
    const prompt: Message[] = [{ role: "user", content: "hello world" }];
    expect(countPromptTokens(prompt)).toBe(4 + 2);
    expect(countPromptTokens(prompt, TOOLS)).toBe(6 + countTokens(`list_files List files ${JSON.stringify(TOOLS[0].inputSchema)}`));
  });
});

describe("ScriptedModel", () => {
  it("describes itself as the scripted provider", () => {
    const m = model();
    expect(m.specificationVersion).toBe("rein-v1");
    expect(m.provider).toBe("scripted");
    expect(m.family).toBe("scripted");
    expect(m.modelId).toBe("test");
  });

  it("plays turn i when the prompt has i assistant messages", async () => {
    const m = model();
    const r0 = await m.doGenerate({ prompt: promptWith(0) });
    expect(r0.content).toEqual([{ type: "text", text: "Hello there, I will look around." }]);
    expect(r0.finishReason).toBe("stop");

    const r1 = await m.doGenerate({ prompt: promptWith(1) });
    expect(r1.content.map((p) => p.type)).toEqual(["text", "tool-call", "tool-call", "tool-call"]);
    expect(r1.content[0]).toEqual({ type: "text", text: "Listing and reading." });
    expect(r1.content[2]).toMatchObject({ type: "tool-call", toolName: "read_file", input: { path: "a.txt", startLine: 2 } });
    expect(r1.finishReason).toBe("tool-calls");

    const r2 = await m.doGenerate({ prompt: promptWith(2) });
    expect(r2.content).toEqual([{ type: "tool-call", toolCallId: expect.any(String), toolName: "shell", input: { command: "echo hi" } }]);
    // Deterministic: the same prompt gives the same answer.
    expect(await m.doGenerate({ prompt: promptWith(1) })).toEqual(r1);
  });

  it("gives tool calls ids unique within a turn and across turns", async () => {
    const m = model();
    const ids: string[] = [];
    for (let i = 0; i < SCENARIO.turns.length; i++) {
      const r = await m.doGenerate({ prompt: promptWith(i) });
      const turnIds = r.content.flatMap((p) => (p.type === "tool-call" ? [p.toolCallId] : []));
      expect(new Set(turnIds).size).toBe(turnIds.length); // the two identical list_files calls differ
      ids.push(...turnIds);
    }
    expect(ids).toHaveLength(4);
    expect(new Set(ids).size).toBe(4);
  });

  it("streams text deltas that join to the text, tool calls with JSON input, and one finish with usage", async () => {
    const m = model();
    const prompt = promptWith(1);
    const parts = await streamOf(m, prompt, { tools: TOOLS });
    expect(parts[0]).toEqual({ type: "stream-start" });
    const deltas = parts.filter((p): p is Extract<StreamPart, { type: "text-delta" }> => p.type === "text-delta");
    expect(deltas.length).toBeGreaterThan(1); // streamed word by word
    expect(deltas.map((d) => d.delta).join("")).toBe("Listing and reading.");
    const calls = parts.filter((p): p is Extract<StreamPart, { type: "tool-call" }> => p.type === "tool-call");
    expect(calls.map((c) => c.toolName)).toEqual(["list_files", "read_file", "list_files"]);
    for (const c of calls) expect(typeof c.input).toBe("string");
    expect(JSON.parse(calls[1].input)).toEqual({ path: "a.txt", startLine: 2 });

    const finishes = parts.filter((p) => p.type === "finish");
    expect(finishes).toHaveLength(1);
    expect(parts[parts.length - 1]).toBe(finishes[0]);
    expect(parts.some((p) => p.type === "error")).toBe(false);
    const finish = finishes[0] as Extract<StreamPart, { type: "finish" }>;
    expect(finish.finishReason).toBe("tool-calls");

    const { usage } = finish;
    expect(usage.inputTokens).toBeGreaterThan(0);
    expect(usage.outputTokens).toBeGreaterThan(0);
    expect(usage.inputTokens).toBe(countPromptTokens(prompt, TOOLS));
    const turn = SCENARIO.turns[1];
    const expectedOutput =
      countTokens(turn.text!) + turn.toolCalls!.reduce((n, c) => n + countTokens(`${c.tool}${JSON.stringify(c.args)}`), 0);
    expect(usage.outputTokens).toBe(expectedOutput);
    expect(usage.totalTokens).toBe(usage.inputTokens + usage.outputTokens);
    expect(usage.cachedInputTokens).toBe(0);

    // Streaming and generating agree.
    const generated = await m.doGenerate({ prompt, tools: TOOLS });
    expect(generated.usage).toEqual(usage);
  });

  it("counts output tokens of a text turn with the tokenizer", async () => {
    const m = model({ turns: [{ text: "hello world" }] });
    const parts = await streamOf(m, [{ role: "user", content: "hello world" }]);
    const finish = parts.find((p) => p.type === "finish") as Extract<StreamPart, { type: "finish" }>;
    expect(finish.usage.outputTokens).toBe(2);
    expect(finish.usage.inputTokens).toBe(6);
  });

  it("finishes with no content past the last turn", async () => {
    const parts = await streamOf(model(), promptWith(SCENARIO.turns.length));
    expect(parts.map((p) => p.type)).toEqual(["stream-start", "finish"]);
    const finish = parts[1] as Extract<StreamPart, { type: "finish" }>;
    expect(finish.finishReason).toBe("stop");
    expect(finish.usage.outputTokens).toBe(0);
    expect(finish.stopReason).toBeUndefined();
    expect((await model().doGenerate({ prompt: promptWith(9) })).content).toEqual([]);
  });

  it("with stopOnError stops after a failed tool result, with a stopReason", async () => {
    const stopping = model({ ...SCENARIO, stopOnError: true });
    const parts = await streamOf(stopping, promptWith(1, true));
    expect(parts.some((p) => p.type === "tool-call")).toBe(false);
    const finish = parts.find((p) => p.type === "finish") as Extract<StreamPart, { type: "finish" }>;
    expect(finish.finishReason).toBe("stop");
    expect(finish.stopReason).toMatch(/shell/);
    expect(finish.stopReason).toMatch(/stopOnError/);
    const text = parts.flatMap((p) => (p.type === "text-delta" ? [p.delta] : [])).join("");
    expect(text).toMatch(/shell failed/);

    // A successful result, or no stopOnError, plays on.
    const ok = await stopping.doGenerate({ prompt: promptWith(1, false) });
    expect(ok.stopReason).toBeUndefined();
    expect(ok.content.some((p) => p.type === "tool-call")).toBe(true);
    const lenient = await model().doGenerate({ prompt: promptWith(1, true) });
    expect(lenient.stopReason).toBeUndefined();
    expect(lenient.content.some((p) => p.type === "tool-call")).toBe(true);
  });

  it("with stopOnError also stops when the failed call was not the last call of its turn", async () => {
    const prompt: Message[] = [
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: [
          { type: "tool-call", toolCallId: "call_0_0", toolName: "read_file", input: { path: "missing" } },
          { type: "tool-call", toolCallId: "call_0_1", toolName: "list_files", input: {} },
        ],
      },
      // The kernel records one tool message per result, in call order.
      {
        role: "tool",
        content: [{ type: "tool-result", toolCallId: "call_0_0", toolName: "read_file", output: { error: {} }, isError: true }],
      },
      {
        role: "tool",
        content: [{ type: "tool-result", toolCallId: "call_0_1", toolName: "list_files", output: { files: [] }, isError: false }],
      },
    ];
    const r = await model({ ...SCENARIO, stopOnError: true }).doGenerate({ prompt });
    expect(r.stopReason).toMatch(/read_file/);
    expect(r.content.some((p) => p.type === "tool-call")).toBe(false);
  });

  it("with stopOnError stops after a shell command that exited non-zero, saying so", async () => {
    const prompt = (exitCode: number): Message[] => [
      { role: "user", content: "go" },
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "call_0_0", toolName: "shell", input: { command: "node --test" } }] },
      {
        role: "tool",
        content: [
          { type: "tool-result", toolCallId: "call_0_0", toolName: "shell", output: { exitCode, output: "1 failing" }, isError: false },
        ],
      },
    ];
    const failed = await model({ ...SCENARIO, stopOnError: true }).doGenerate({ prompt: prompt(1) });
    expect(failed.stopReason).toMatch(/shell failed.*exited with code 1/);
    expect(failed.content).toEqual([
      { type: "text", text: expect.stringMatching(/^Stopping: the tool call shell failed \(it exited with code 1\)/) },
    ]);
    const passed = await model({ ...SCENARIO, stopOnError: true }).doGenerate({ prompt: prompt(0) });
    expect(passed.stopReason).toBeUndefined();
  });

  it("the demos that run tests stop on a failed step instead of claiming the tests pass", () => {
    for (const name of ["demo-coder", "demo-team", "demo-deploy", "demo-release", "demo-browser"])
      expect(BUILTIN_SCENARIOS[name].stopOnError, name).toBe(true);
  });

  it("demo-browser orders what the goal names from the shop's catalogue, and says when it names nothing", async () => {
    const router = new DefaultModelRouter({ scriptedDelayMs: 0 });
    const play = async (goal: string) => {
      const { model } = router.resolve({ model: "scripted/demo-browser", taskClass: "code" });
      const first = await model.doGenerate({ prompt: [{ role: "user", content: goal }] });
      const typed = BUILTIN_SCENARIOS["demo-browser"].turns.findIndex((t) => t.toolCalls?.some((c) => c.tool === "browser_type"));
      return { first, plan: GOAL_SCENARIOS["demo-browser"](goal), typed };
    };
    const mugs = await play("Order three Rein mugs and a notebook");
    expect(mugs.first.content[1]).toMatchObject({
      type: "tool-call",
      toolName: "write_file",
      input: { path: "ORDER.md", content: expect.stringContaining("Order: Three Rein mugs and one Rein notebook, please") },
    });
    expect(mugs.plan.turns[mugs.typed].toolCalls![1].args).toEqual({
      selector: "#message",
      text: "Three Rein mugs and one Rein notebook, please",
    });
    const none = await play("Buy a pony");
    expect(none.first.content[0]).toMatchObject({
      type: "text",
      text: expect.stringContaining("Your goal names nothing the demo shop sells"),
    });
    expect(none.plan.turns[none.typed].toolCalls![1].args).toEqual({ selector: "#message", text: "Two Rein stickers, please" });
    // The default goal gives the default order without a note.
    const plain = await play("Order two Rein stickers from the demo shop");
    expect(plain.first.content[0]).toEqual({ type: "text", text: BUILTIN_SCENARIOS["demo-browser"].turns[0].text });
  });

  it("demo-coder writes slugify when the goal names it, and fizzbuzz for any other goal", () => {
    const written = (goal: string) =>
      GOAL_SCENARIOS["demo-coder"](goal)
        .turns.flatMap((t) => t.toolCalls ?? [])
        .filter((c) => c.tool === "write_file")
        .map((c) => c.args.path);
    expect(written("Plan a slugify helper, hand the coding to the specialist, and test it")).toEqual([
      "PLAN.md",
      "src/slugify.mjs",
      "test/slugify.test.mjs",
    ]);
    expect(written("Add a Slugify helper")).toContain("src/slugify.mjs");
    for (const goal of ["Write fizzbuzz with tests", "", "Write slugifyer.js"])
      expect(written(goal), goal).toEqual(["src/fizzbuzz.mjs", "test/fizzbuzz.test.mjs"]);
    expect(GOAL_SCENARIOS["demo-coder"]("Write fizzbuzz")).toBe(BUILTIN_SCENARIOS["demo-coder"]);
  });

  it("demo-deploy deploys where the goal says, and to production (saying so) when it names no environment it knows", () => {
    const command = (goal: string) =>
      GOAL_SCENARIOS["demo-deploy"](goal)
        .turns.flatMap((t) => t.toolCalls ?? [])
        .find((c) => String(c.args.command).startsWith("./deploy.sh"))!.args.command;
    expect(command("Deploy 2.0.1 to staging")).toBe("./deploy.sh staging");
    expect(GOAL_SCENARIOS["demo-deploy"]("Deploy 2.0.1 to staging").turns[0].toolCalls![0].args).toEqual({
      path: "VERSION",
      content: "2.0.1\n",
    });
    expect(command("Ship it to the moon; rm -rf /")).toBe("./deploy.sh production");
    expect(GOAL_SCENARIOS["demo-deploy"]("Ship it to the moon").turns[0].text).toContain("names none of the environments I know");
    expect(GOAL_SCENARIOS["demo-deploy"]("Deploy to staging, then production").turns[0].text).toContain(
      "names several environments (staging, production)",
    );
    expect(command("Deploy to staging, then production")).toBe("./deploy.sh production");
  });

  it("stops the stream when the signal is aborted mid-stream", async () => {
    const controller = new AbortController();
    const { stream } = await model({ turns: [{ text: "one two three four five six seven eight nine ten" }] }, 5).doStream({
      prompt: promptWith(0),
      abortSignal: controller.signal,
    });
    const reader = stream.getReader();
    const parts: StreamPart[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      if (value.type === "text-delta") controller.abort(new Error("stop now"));
    }
    expect(parts.filter((p) => p.type === "text-delta").length).toBeLessThan(10);
    expect(parts.some((p) => p.type === "finish")).toBe(false);
    expect(parts[parts.length - 1]).toMatchObject({ type: "error" });
  });

  it.each([
    ["a text turn", 0],
    ["a tool-call-only turn", 2],
  ])("plays nothing of %s when the signal is already aborted", async (_what, turn) => {
    const controller = new AbortController();
    controller.abort(new Error("canceled"));
    const parts = await streamOf(model(), promptWith(turn), { abortSignal: controller.signal });
    expect(parts.some((p) => p.type === "tool-call" || p.type === "text-delta")).toBe(false);
    expect(parts.some((p) => p.type === "finish")).toBe(false);
    expect(parts[parts.length - 1]).toMatchObject({ type: "error" });
    await expect(model().doGenerate({ prompt: promptWith(turn), abortSignal: controller.signal })).rejects.toThrow("canceled");
  });
});

describe("ScenarioSchema", () => {
  it("accepts a list of turns and the { turns, stopOnError } form", () => {
    const turns = [{ text: "hi", toolCalls: [{ tool: "shell", args: { command: "ls" } }] }, { text: "done" }];
    expect(parseScenario(turns)).toEqual({ turns });
    expect(parseScenario({ turns, stopOnError: true })).toEqual({ turns, stopOnError: true });
    expect(parseScenario({ turns })).toEqual({ turns });
    // A text-only turn before the last would end the run there: refused with a clear message.
    expect(() => parseScenario([{ text: "hi" }, { text: "bye" }])).toThrow(/turn 1 has no tool calls, so the run would end there/);
    // args may be left out: an empty object.
    expect(parseScenario([{ toolCalls: [{ tool: "list_files" }] }])).toEqual({
      turns: [{ toolCalls: [{ tool: "list_files", args: {} }] }],
    });
    // An empty text is still a turn.
    expect(parseScenario([{ text: "" }]).turns).toHaveLength(1);
  });

  it("accepts the built-in scenarios", () => {
    for (const s of Object.values(BUILTIN_SCENARIOS)) expect(() => parseScenario(s)).not.toThrow();
  });

  it.each([
    ["an empty list", [], "a scenario needs at least one turn"],
    ["an empty turns list", { turns: [] }, "a scenario needs at least one turn"],
    ["a turn with neither text nor tool calls", [{}], "a turn needs text or at least one tool call"],
    ["a turn with an empty tool call list", [{ toolCalls: [] }], "a turn needs text or at least one tool call"],
    ["an unknown field in a turn", [{ text: "x", foo: 1 }], 'Unrecognized key: "foo"'],
    ["an unknown top-level field", { turns: [{ text: "x" }], stopOnErrors: true }, 'Unrecognized key: "stopOnErrors"'],
    ["an unknown field in a tool call", [{ toolCalls: [{ tool: "shell", arguments: {} }] }], 'Unrecognized key: "arguments"'],
    ["an empty tool name", [{ toolCalls: [{ tool: "", args: {} }] }], "tool name is empty"],
    ["args that are not an object", [{ toolCalls: [{ tool: "shell", args: "ls" }] }], "expected record"],
    ["stopOnError that is not a boolean", { turns: [{ text: "x" }], stopOnError: "yes" }, "expected boolean"],
  ])("rejects %s with a clear message", (_what, value, message) => {
    const result = ScenarioSchema.safeParse(value);
    expect(result.success).toBe(false);
    expect(result.error!.issues.map((i) => i.message).join("\n")).toContain(message);
    expect(() => parseScenario(value)).toThrow();
  });

  it("rejects a scenario that is not a list or an object", () => {
    expect(ScenarioSchema.safeParse("turns").success).toBe(false);
    expect(ScenarioSchema.safeParse(null).success).toBe(false);
  });
});

describe("DefaultModelRouter", () => {
  const router = new DefaultModelRouter({ scriptedDelayMs: 0 });

  it("plays a scenario given with the run, whatever model the spec names", async () => {
    const scenario: Scenario = { turns: [{ text: "from the run" }] };
    for (const name of ["scripted/demo-coder", "openai/gpt-4o", "anything"]) {
      const resolved = router.resolve({ model: name, taskClass: "code", scenario });
      expect(resolved.scripted).toBe(true);
      expect(resolved.label).toMatch(/^scripted/);
      expect(resolved.model.provider).toBe("scripted");
      const r = await resolved.model.doGenerate({ prompt: [{ role: "user", content: "go" }] });
      expect(r.content).toEqual([{ type: "text", text: "from the run" }]);
    }
  });

  it.each(Object.keys(BUILTIN_SCENARIOS))("resolves scripted/%s to the scripted model playing it", async (name) => {
    const resolved = router.resolve({ model: `scripted/${name}`, taskClass: "code" });
    expect(resolved).toMatchObject({ scripted: true, label: `scripted · ${name}` });
    expect(resolved.model.provider).toBe("scripted");
    expect(resolved.model.modelId).toBe(name);
    const r = await resolved.model.doGenerate({ prompt: [{ role: "user", content: "go" }] });
    // A demo that reads the goal plays its turns for this one ("go" names nothing, so: its default, saying so).
    expect(r.content[0]).toEqual({ type: "text", text: (GOAL_SCENARIOS[name]?.("go") ?? BUILTIN_SCENARIOS[name]).turns[0].text });
  });

  it.each(["openai/gpt-4o", "scripted/no-such-scenario", "", "demo-coder"])(
    "refuses the unknown model %j, listing the known ones",
    (name) => {
      let caught: unknown;
      try {
        router.resolve({ model: name, taskClass: "code" });
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(UnknownModelError);
      const message = (caught as Error).message;
      expect(message).toContain(`"${name}"`);
      for (const known of ["scripted/demo-coder", "scripted/demo-team"]) expect(message).toContain(known);
    },
  );

  it("names the family of scripted models, and of no model it does not know (for the judge cross-family rule)", () => {
    expect(router.familyOf("scripted/demo-coder")).toBe("scripted");
    expect(router.familyOf("scripted/run-scenario")).toBe("scripted");
    expect(router.familyOf("openai/gpt-4o")).toBeNull();
  });

  it("resolves every model it lists as known", () => {
    for (const name of router.knownModels()) {
      expect(() => router.resolve({ model: name, taskClass: "code" }), name).not.toThrow();
    }
  });
});
