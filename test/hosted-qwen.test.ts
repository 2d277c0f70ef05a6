// Qwen Code as a hosted agent (docs/hosted-agents.md#the-programs): the real
// program, installed from its pinned npm package, runs in the run's sandbox
// over ACP, and its OpenAI Chat Completions calls go through Rein's gateway
// and router to a provider configured with a key (a fake OpenAI server plays
// the model's turns). Its file writes and every command go through Rein's
// policy; the commands it runs itself with `bash -c` run at the pod's prompt
// through the shell relay; the deploy waits for a person, each model call is
// a priced model.turn, and the provider's key never reaches the sandbox.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestKernel } from "@/test/helpers/kernel";
import { agentEnvironments, hostedKernel, pendingRequest, runEvents, type HostedKernel } from "@/test/helpers/hosted";
import { waitFor } from "@/test/helpers/wait";
import { createRun } from "@/server/kernel";
import { hostedProgram, installProgram } from "@/server/hosted";
import { startFakeOpenAI, type FakeBehaviour, type FakeServer } from "@/server/models";

const PROVIDER_KEY = "sk-qwen-hosted-test-9f3c1e7b2a";
const AGENT = "qwen-coder";
const PRICE = { inputPerMTok: 3, outputPerMTok: 15 };
/** What each fake answer uses: prompt tokens grow with the conversation in real life; here every call costs the same. */
const USAGE = { uncachedInputTokens: 1200, outputTokens: 80 };

const HELLO = "#!/bin/sh\necho Hello from Qwen Code\n";
const DEPLOY = '#!/bin/sh\nmkdir -p out && echo "deployed hello.sh to $1" > out/deploy.log\n';
const LOOK_AROUND = "env; cat /proc/self/environ; find /home/agent /workspace -type f | xargs cat";

/** A model turn that calls Qwen's own tools (write_file, run_shell_command), as its model would. */
function calls(...list: Array<[name: string, args: Record<string, unknown>]>): FakeBehaviour {
  return {
    type: "reply",
    reply: {
      usage: USAGE,
      toolCalls: list.map(([name, args], i) => ({
        id: `call_${name}_${i}_${Math.random().toString(36).slice(2, 8)}`,
        name,
        arguments: JSON.stringify(args),
      })),
    },
  };
}
const says = (text: string): FakeBehaviour => ({ type: "reply", reply: { text, usage: USAGE } });
const shell = (command: string) => calls(["run_shell_command", { command, description: command.slice(0, 40) }]);

/** The turns up to the deploy: write both scripts, run one, look around the sandbox, deploy. */
const UP_TO_DEPLOY: FakeBehaviour[] = [
  calls(
    ["write_file", { file_path: "/workspace/hello.sh", content: HELLO }],
    ["write_file", { file_path: "/workspace/deploy.sh", content: DEPLOY }],
  ),
  shell("sh hello.sh && chmod +x deploy.sh"),
  shell(LOOK_AROUND),
  shell("./deploy.sh staging"),
];

/** The run ends as expected; if not, the assertion says why it ended. */
async function expectEnd(tk: TestKernel, runId: string, expected: string) {
  const state = await tk.settle(runId);
  const run = await tk.t.db.run.findUniqueOrThrow({ where: { id: runId }, select: { errorMessage: true } });
  const last = (await runEvents(tk, runId)).slice(-6).map((e) => `${e.type} ${JSON.stringify(e.payload).slice(0, 200)}`);
  expect(state, `the run ended: ${run.errorMessage}; its last events: ${last.join("\n")}`).toBe(expected);
}

/** Every file under a folder, read as text (binary files too: a key would show in them as well). */
function everyFile(dir: string): Array<{ file: string; text: string }> {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => {
      const file = path.join(d.parentPath, d.name);
      return { file, text: fs.readFileSync(file, "latin1") };
    });
}

describe("Qwen Code as a hosted agent", () => {
  let hk: HostedKernel;
  let tk: TestKernel;
  let fake: FakeServer;
  /** What Rein's policy was asked, in order. */
  const asked: Array<{ tool: string; args: unknown }> = [];

  beforeAll(async () => {
    // How a clean machine gets the program for `npm test`: kept in .rein/programs after the first time.
    await installProgram(hostedProgram("qwen-code")!.package!);
    hk = await hostedKernel({
      models: true,
      gate: (policy) => ({
        check: (call) => {
          asked.push({ tool: call.tool.name, args: call.args });
          return policy.check(call);
        },
        replayUnknown: (call) => policy.replayUnknown(call),
      }),
    });
    tk = hk.tk;
    fake = await startFakeOpenAI({ apiKey: PROVIDER_KEY, models: ["m1"] });
    const admin = { userId: tk.users.admin, name: "admin" };
    await tk.models!.admin.createProvider({ name: "fake", kind: "openai-compatible", baseUrl: fake.baseUrl, apiKey: PROVIDER_KEY }, admin);
    await tk.models!.admin.saveModel({ provider: "fake", modelId: "m1", family: "alpha", prices: PRICE }, admin);
    await tk.telemetry!.loadPrices();
    await hk.spec(AGENT, "qwen-code", { callCap: 20, model: "fake/m1" });
  }, 180_000);

  afterAll(async () => {
    await hk?.cleanup();
    await fake?.close();
  });

  it("writes a file, runs its commands in the pod, waits for a person before the deploy, and finishes when approved", async () => {
    fake.reset();
    asked.length = 0;
    fake.enqueue(...UP_TO_DEPLOY, says("Deployed hello.sh to staging."));
    const run = await createRun(tk.kernel, { goal: "Write hello.sh, run it, then deploy it to staging", agent: AGENT }, tk.actors.operator);

    const request = await pendingRequest(tk, run.id);
    expect(request.title).toContain("./deploy.sh staging");
    const root = tk.kernel.deps.workspaceFor(run.id).root;
    expect(fs.existsSync(path.join(root, "out", "deploy.log"))).toBe(false); // it waits for the person
    // Its processes, alive while it waits: each has the run's gateway token, none the vendor's key.
    const envs = agentEnvironments("qwen-code");
    expect(envs.filter((env) => /^OPENAI_API_KEY=rein_gw_/m.test(env)).length).toBeGreaterThanOrEqual(2);
    for (const env of envs) expect(env).not.toContain(PROVIDER_KEY);
    await hk.decide(request.id, "approve", "ok");
    await expectEnd(tk, run.id, "succeeded");

    // Its files, written through Rein's file service, and what its commands did.
    expect(fs.readFileSync(path.join(root, "hello.sh"), "utf8")).toBe(HELLO);
    expect(fs.readFileSync(path.join(root, "out", "deploy.log"), "utf8")).toBe("deployed hello.sh to staging\n");

    // Rein's policy decided every write and every command (Qwen asked through session/request_permission).
    expect(asked.filter((a) => a.tool === "write_file").map((a) => (a.args as { path: string }).path)).toEqual(["hello.sh", "deploy.sh"]);
    // (A command a person decided is put to the policy again when the decision comes: once more, the same.)
    expect([...new Set(asked.filter((a) => a.tool === "shell").map((a) => (a.args as { command: string }).command))]).toEqual([
      "sh hello.sh && chmod +x deploy.sh",
      LOOK_AROUND,
      "./deploy.sh staging",
    ]);

    // Qwen runs its commands itself with `bash -c`; the shell relay ran them at the pod's prompt (the Terminal tab),
    // in the order it ran them, and gave it back their output, which is on the timeline as well.
    const log = await runEvents(tk, run.id);
    const results = log.filter((e) => e.type === "tool.result");
    expect(results.every((r) => r.payload.ok === true)).toBe(true);
    expect(results.map((r) => String(r.payload.output)).join("\n")).toContain("Output: Hello from Qwen Code");
    const terminal = hk.stream();
    const at = (text: string) => terminal.indexOf(text);
    expect(at("bash -c 'sh hello.sh && chmod +x deploy.sh'")).toBeGreaterThanOrEqual(0);
    expect(at("Hello from Qwen Code")).toBeGreaterThan(at("bash -c 'sh hello.sh"));
    expect(at("bash -c './deploy.sh staging'")).toBeGreaterThan(at("Hello from Qwen Code"));
    expect(log.filter((e) => e.type === "tool.call").map((e) => e.payload.tool)).toEqual([
      "write_file",
      "write_file",
      "shell",
      "shell",
      "shell",
    ]);
    expect(log.map((e) => e.type)).toContain("human.requested");
    // Each call is on the timeline with its input, which Qwen sends with its permission request, not when it announces the call.
    const inputs = log
      .filter((e) => e.type === "tool.call")
      .map((e) => (e.payload.args as { input: Record<string, unknown> | null }).input);
    expect(inputs.map((i) => i?.file_path ?? i?.command)).toEqual([
      "/workspace/hello.sh",
      "/workspace/deploy.sh",
      "sh hello.sh && chmod +x deploy.sh",
      LOOK_AROUND,
      "./deploy.sh staging",
    ]);

    // Each of Qwen's model calls went through the gateway to the configured provider: a model.turn, then a priced chat span.
    // (Qwen may start one more call of its own after its turn, a follow-up suggestion, which the end of the run cuts short.)
    expect(fake.requests.length).toBeGreaterThanOrEqual(5);
    expect(fake.requests.every((r) => r.path === "/v1/chat/completions" && r.headers.authorization === `Bearer ${PROVIDER_KEY}`)).toBe(
      true,
    );
    const turns = log.filter((e) => e.type === "model.turn");
    expect(turns.length).toBeGreaterThanOrEqual(5);
    expect(turns.slice(0, 5).map((t) => t.payload.text)).toEqual(["", "", "", "", "Deployed hello.sh to staging."]);
    for (const t of turns) expect(t.payload).toMatchObject({ agent: AGENT, model: "fake/m1", scripted: false, requestedModel: "rein" });
    await tk.kernel.pool.whenIdle();
    await tk.telemetry!.settle();
    const spans = await tk.t.db.span.findMany({
      where: { runId: run.id, kind: "chat" },
      select: { model: true, costUsd: true, inputTokens: true },
    });
    expect(spans).toHaveLength(turns.length);
    const perCall = (USAGE.uncachedInputTokens * PRICE.inputPerMTok + USAGE.outputTokens * PRICE.outputPerMTok) / 1e6;
    for (const s of spans) {
      expect(s).toMatchObject({ model: "fake/m1", inputTokens: USAGE.uncachedInputTokens });
      expect(s.costUsd).toBeCloseTo(perCall, 10);
    }

    // No vendor key inside: not in what its commands saw (the pod's environment, every file of the workspace),
    // not in its hosted folder (its home), not in the workspace, not in anything it sent, not in the Terminal tab.
    const lookedAround = results.find((r) => String(r.payload.output).includes("Command: env;"));
    expect(String(lookedAround?.payload.output)).toContain("PATH="); // the pod's environment, printed
    expect(terminal).not.toContain(PROVIDER_KEY);
    const hostedDir = path.join(tk.t.dir, "hosted", run.id);
    const seen = [
      { file: "the commands' output", text: JSON.stringify(results) },
      { file: "its requests' bodies", text: JSON.stringify(fake.requests.map((r) => r.body)) },
      ...everyFile(hostedDir),
      ...everyFile(root),
    ];
    expect(everyFile(hostedDir).some((f) => f.file.includes(`${path.sep}.qwen${path.sep}`))).toBe(true); // it did write its own files there
    for (const { file, text } of seen) expect(text.includes(PROVIDER_KEY), `the provider key is in ${file}`).toBe(false);
  }, 120_000);

  it("a rejected deploy does not run: Qwen is told, stops, and the run ends as stopped by the reviewer", async () => {
    fake.reset();
    fake.enqueue(...UP_TO_DEPLOY);
    const run = await createRun(tk.kernel, { goal: "Write hello.sh, run it, then deploy it to staging", agent: AGENT }, tk.actors.operator);
    const request = await pendingRequest(tk, run.id);
    await hk.decide(request.id, "reject", "not today");
    await expectEnd(tk, run.id, "canceled");

    const root = tk.kernel.deps.workspaceFor(run.id).root;
    expect(fs.existsSync(path.join(root, "hello.sh"))).toBe(true);
    expect(fs.existsSync(path.join(root, "out", "deploy.log"))).toBe(false);
    const log = await runEvents(tk, run.id);
    const failed = log.filter((e) => e.type === "tool.result" && e.payload.ok === false);
    expect(failed).toHaveLength(1);
    expect(failed[0].payload).toMatchObject({ tool: "shell", error: { message: expect.stringContaining("canceled by the user") } });
    // Qwen made no model call after the refusal: it ended its turn on the person's word.
    expect(fake.requests).toHaveLength(4);
    const end = log.findLast((e) => e.type === "run.state")!;
    expect(end.payload.reason).toContain("not today");
  }, 120_000);

  it("pause ends its process; resume starts it again, it reloads its session (session/load) and goes on where it was", async () => {
    fake.reset();
    fake.enqueue(...UP_TO_DEPLOY, shell("./deploy.sh staging"), says("Deployed after the pause."));
    const run = await createRun(tk.kernel, { goal: "Write hello.sh, run it, then deploy it to staging", agent: AGENT }, tk.actors.operator);
    const first = await pendingRequest(tk, run.id);
    const who = { id: tk.users.operator, name: "operator" };
    expect(await tk.kernel.pool.pause(run.id, who)).toEqual({ ok: true });
    await waitFor(async () => (await tk.t.db.run.findUniqueOrThrow({ where: { id: run.id } })).status === "paused", "the pause");
    // The question its process asked went with it.
    expect((await tk.t.db.humanRequest.findUniqueOrThrow({ where: { id: first.id } })).state).not.toBe("PENDING");
    const before = fake.requests.length;

    expect(await tk.kernel.pool.resume(run.id, who)).toMatchObject({ ok: true });
    const again = await waitFor(async () => {
      const open = await tk.t.db.humanRequest.findMany({ where: { runId: run.id, state: "PENDING" } });
      return open[0] ?? null;
    }, "the deploy to be asked about again");
    expect(again.title).toContain("./deploy.sh staging");
    // The new process reloaded the session: its first call after resume carries the conversation so far.
    const resumed = JSON.stringify(fake.requests[before].body);
    expect(resumed).toContain("Hello from Qwen Code");
    expect(resumed).toContain("Continue the task.");
    const cp = await tk.kernel.store.latestCheckpoint(run.id);
    expect(cp!.state.hosted).toMatchObject({ canLoad: true });

    await hk.decide(again.id, "approve", "ok");
    await expectEnd(tk, run.id, "succeeded");
    const root = tk.kernel.deps.workspaceFor(run.id).root;
    expect(fs.readFileSync(path.join(root, "out", "deploy.log"), "utf8")).toBe("deployed hello.sh to staging\n");
    const texts = (await runEvents(tk, run.id)).filter((e) => e.type === "model.turn").map((e) => e.payload.text);
    expect(texts).toContain("Deployed after the pause.");
  }, 120_000);
});
