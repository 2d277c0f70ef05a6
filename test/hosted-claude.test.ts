// Claude Code as a hosted agent (docs/hosted-agents.md): the real program,
// installed from npm, runs in the run's sandbox through its ACP adapter. Its
// model is a fake Anthropic server behind a provider whose key only Rein
// holds: Claude Code writes files through Rein, runs commands at the pod's
// prompt, waits for a person before a deploy, and its model calls are the
// run's priced model turns. The vendor's key is nowhere the agent can read.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestKernel } from "@/test/helpers/kernel";
import { agentEnvironments, hostedKernel, pendingRequest, runEvents, type HostedKernel } from "@/test/helpers/hosted";
import { createRun } from "@/server/kernel";
import { hostedProgram, installProgram, policyView } from "@/server/hosted";
import { startFakeAnthropic, type FakeBehaviour, type FakeServer, type RecordedRequest } from "@/server/models";

const PROVIDER_KEY = "sk-ant-fake-vendor-key-7Qm2xV9zL4kP0042";
const AGENT = "claude-coder";
const MODEL_ID = "claude-fake-sonnet";
const PRICE = { inputPerMTok: 3, outputPerMTok: 15 };
const DEPLOY = "./deploy.sh staging";

const HELLO = '#!/bin/sh\necho "Hello from Claude Code"\n';
const DEPLOY_SCRIPT = '#!/bin/sh\nmkdir -p out\necho "deployed hello.sh to $1" > out/deploy.log\necho "deploy done"\n';
/** The shell command: the script's output, and the pod's environment and the agent's files, to search for the key. */
const SHELL = "chmod +x deploy.sh && sh hello.sh && env && find /workspace -type f -not -path '*/.git/*' | xargs cat";

const toolUse = (id: string, name: string, input: Record<string, unknown>) => ({ id, name, arguments: JSON.stringify(input) });

/** The turns of Claude Code's agent loop, in order: two files, a command, the deploy, then its last words. */
function codingTask(): FakeBehaviour[] {
  return [
    {
      type: "reply",
      reply: {
        text: "I'll write the two scripts.",
        toolCalls: [
          toolUse("toolu_write_hello", "mcp__acp__Write", { file_path: "/workspace/hello.sh", content: HELLO }),
          toolUse("toolu_write_deploy", "mcp__acp__Write", { file_path: "/workspace/deploy.sh", content: DEPLOY_SCRIPT }),
        ],
      },
    },
    {
      type: "reply",
      reply: { toolCalls: [toolUse("toolu_shell", "mcp__acp__Bash", { command: SHELL, description: "Run hello.sh", timeout: 60_000 })] },
    },
    {
      type: "reply",
      reply: {
        toolCalls: [toolUse("toolu_deploy", "mcp__acp__Bash", { command: DEPLOY, description: "Deploy to staging", timeout: 60_000 })],
      },
    },
    { type: "reply", reply: { text: "Done: hello.sh is written and deployed to staging." } },
  ];
}

const offersTools = (r: RecordedRequest) => Array.isArray(r.body?.tools) && r.body.tools.length > 0;

/**
 * Plays `turns` to Claude Code's agent loop (the requests that offer it its
 * tools), in order; its side calls (a one-line summary of the git history at
 * start, without tools) get the fake's plain text. The fake plays its queue in
 * arrival order, so the queue here picks by the request being answered, which
 * is the last one the fake recorded.
 */
function playToAgent(fake: FakeServer, turns: FakeBehaviour[]) {
  const queue = { shift: () => (offersTools(fake.lastRequest()) ? turns.shift() : undefined) };
  Object.assign(fake, { queue });
}

/** Every file under a folder, as text. */
function filesText(dir: string): string {
  if (!fs.existsSync(dir)) return "";
  return (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((e) => e.isFile())
    .map((e) => fs.readFileSync(path.join(e.parentPath, e.name), "latin1"))
    .join("\n");
}

describe("Claude Code in a Rein run", () => {
  let hk: HostedKernel;
  let tk: TestKernel;
  let fake: FakeServer;
  beforeAll(async () => {
    // npm test on a clean machine installs it here (once; later runs find it installed).
    await installProgram(hostedProgram("claude-code")!.package!);
    hk = await hostedKernel({ models: true });
    tk = hk.tk;
    fake = await startFakeAnthropic({ apiKey: PROVIDER_KEY, models: [MODEL_ID] });
    const admin = { userId: tk.users.admin, name: "admin" };
    await tk.models!.admin.createProvider({ name: "vendor", kind: "anthropic", baseUrl: fake.baseUrl, apiKey: PROVIDER_KEY }, admin);
    await tk.models!.admin.saveModel({ provider: "vendor", modelId: MODEL_ID, family: "claude", prices: PRICE }, admin);
    await tk.telemetry!.loadPrices();
    await hk.spec(AGENT, "claude-code", { callCap: 20, model: `vendor/${MODEL_ID}` });
  }, 180_000);
  afterAll(async () => {
    await hk?.cleanup();
    await fake?.close();
  });

  const decide = (request: { id: string }, decision: "approve" | "reject", comment: string) => hk.decide(request.id, decision, comment);

  async function start() {
    fake.reset();
    playToAgent(fake, codingTask());
    const run = await createRun(tk.kernel, { goal: "Write hello.sh and deploy it to staging", agent: AGENT }, tk.actors.operator);
    const request = await pendingRequest(tk, run.id);
    return { run, request, root: tk.kernel.deps.workspaceFor(run.id).root };
  }

  it("writes a file, runs a command in the pod, waits for a person before the deploy, and finishes when approved", async () => {
    const { run, request, root } = await start();
    // Files: written through Rein into the run's workspace. Terminal: the command ran at the pod's prompt.
    expect(fs.readFileSync(path.join(root, "hello.sh"), "utf8")).toBe(HELLO);
    expect(hk.stream()).toContain("Hello from Claude Code");
    // Inbox: the deploy waits for a person, asked about in the words Claude Code used.
    expect(request.title).toBe(`Run \`${DEPLOY}\`?`);
    expect(fs.existsSync(path.join(root, "out", "deploy.log"))).toBe(false);

    // The agent's processes are alive while it waits: each has the run's gateway token, none the vendor's key.
    const envs = agentEnvironments("claude-code-acp");
    for (const env of envs) expect(env).not.toContain(PROVIDER_KEY);
    // The launcher, the adapter and Claude Code itself were among them.
    expect(envs.filter((env) => /^ANTHROPIC_AUTH_TOKEN=rein_gw_/m.test(env)).length).toBeGreaterThanOrEqual(3);

    await decide(request, "approve", "ok");
    expect(await tk.settle(run.id)).toBe("succeeded");
    expect(fs.readFileSync(path.join(root, "out", "deploy.log"), "utf8")).toBe("deployed hello.sh to staging\n");
    expect(hk.stream()).toContain("deploy done");

    const log = await runEvents(tk, run.id);
    const calls = log.filter((e) => e.type === "tool.call");
    expect(calls.map((e) => e.payload.tool)).toEqual(["write_file", "write_file", "shell", "shell"]);
    expect(calls[3].payload).toMatchObject({ toolCallId: "toolu_deploy", args: { input: { command: DEPLOY } } });
    expect(log.filter((e) => e.type === "tool.result").map((e) => e.payload.ok)).toEqual([true, true, true, true]);
    const asked = log.filter((e) => e.type === "human.requested");
    expect(asked.map((e) => e.payload)).toEqual([expect.objectContaining({ tool: "shell", toolCallId: "toolu_deploy" })]);

    // Each model call of Claude Code is a model.turn of the run on the configured model: its agent loop's four
    // and its side call; the token count it asks first is answered by the gateway, with no model call.
    const turns = log.filter((e) => e.type === "model.turn");
    const sent = fake.requests.filter((r) => r.path === "/v1/messages");
    expect(sent.filter(offersTools)).toHaveLength(4);
    expect(sent.some((r) => r.body?.max_tokens === 1)).toBe(false);
    expect(turns).toHaveLength(sent.length);
    for (const t of turns) expect(t.payload).toMatchObject({ model: `vendor/${MODEL_ID}`, scripted: false });
    await tk.telemetry!.settle();
    const chats = await tk.t.db.span.findMany({ where: { runId: run.id, kind: "chat" } });
    expect(chats).toHaveLength(turns.length);
    for (const s of chats) {
      expect(s.costUsd).toBeGreaterThan(0);
      expect(s.costUsd).toBeCloseTo((s.inputTokens * PRICE.inputPerMTok + s.outputTokens * PRICE.outputPerMTok) / 1e6, 10);
    }

    // The vendor's key reached the vendor from Rein only: it is in no file the agent could read or write
    // (its home under the run's hosted folder, the workspace), nor in the pod, whose environment the command printed.
    expect(fake.requests.every((r) => r.headers["x-api-key"] === PROVIDER_KEY)).toBe(true);
    expect(filesText(path.join(tk.t.dir, "hosted", run.id)).length).toBeGreaterThan(0);
    expect(filesText(path.join(tk.t.dir, "hosted", run.id))).not.toContain(PROVIDER_KEY);
    expect(filesText(root)).not.toContain(PROVIDER_KEY);
    expect(hk.stream()).toContain("CLAUDECODE=1");
    expect(hk.stream()).not.toContain(PROVIDER_KEY);
  }, 60_000);

  it("a rejected deploy does not run, and Claude Code ends its turn there", async () => {
    const { run, request, root } = await start();
    await decide(request, "reject", "not today");
    // Claude Code's adapter interrupts the turn on a refusal: its model is not asked again, so the run stopped on the person's word.
    expect(await tk.settle(run.id)).toBe("canceled");
    const row = await tk.t.db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(row.statusReason).toMatch(/^Stopped by a reviewer — .*: not today$/);
    expect(fs.readFileSync(path.join(root, "hello.sh"), "utf8")).toBe(HELLO);
    expect(fs.existsSync(path.join(root, "out", "deploy.log"))).toBe(false);
    const results = (await runEvents(tk, run.id)).filter((e) => e.type === "tool.result");
    expect(results.at(-1)!.payload).toMatchObject({ toolCallId: "toolu_deploy", ok: false });
    expect(fake.requests.filter(offersTools)).toHaveLength(3);
  }, 60_000);

  it("on T0, with no pod, its own Bash runs in its sandbox, and Rein's policy still decides each command", async () => {
    const saved = tk.kernel.deps.tiers;
    tk.kernel.deps.tiers = { tierOf: () => "T0", toolContext: () => ({}), notice: async () => null };
    try {
      fake.reset();
      const [write] = codingTask();
      const bash = (id: string, command: string) => ({
        type: "reply" as const,
        reply: { toolCalls: [toolUse(id, "Bash", { command, description: command.slice(0, 30), timeout: 60_000 })] },
      });
      playToAgent(fake, [
        write,
        bash("toolu_t0_shell", "chmod +x deploy.sh && sh hello.sh | tr a-z A-Z > t0.txt"),
        bash("toolu_t0_deploy", DEPLOY),
        { type: "reply", reply: { text: "Done on T0." } },
      ]);
      const run = await createRun(tk.kernel, { goal: "Write hello.sh and deploy it to staging", agent: AGENT }, tk.actors.operator);
      const request = await pendingRequest(tk, run.id);
      const root = tk.kernel.deps.workspaceFor(run.id).root;
      // Its own Bash ran the first command in its sandbox, over the workspace; nothing reached a pod's prompt.
      expect(fs.readFileSync(path.join(root, "t0.txt"), "utf8")).toBe("HELLO FROM CLAUDE CODE\n");
      expect(hk.pods.get(run.id)).toBeUndefined();
      expect(hk.stream()).not.toContain("tr a-z A-Z");
      // The deploy still waits for a person: Claude Code asked, and Rein's policy decided.
      expect(request.title).toContain(DEPLOY);
      expect(fs.existsSync(path.join(root, "out", "deploy.log"))).toBe(false);
      await decide(request, "approve", "ok");
      expect(await tk.settle(run.id)).toBe("succeeded");
      expect(fs.readFileSync(path.join(root, "out", "deploy.log"), "utf8")).toBe("deployed hello.sh to staging\n");
    } finally {
      tk.kernel.deps.tiers = saved;
    }
  }, 60_000);

  it("a permission request that names no kind is decided by its input, never as another action", () => {
    // Claude Code's adapter asks with the call's id, title and input only; Rein completes it from the call it
    // announced, and, were that not there yet, reads the input.
    expect(policyView(undefined, { command: DEPLOY, description: "Deploy" }, `\`${DEPLOY}\``, [])).toMatchObject({
      tool: "shell",
      args: { command: DEPLOY },
    });
    expect(policyView(undefined, { file_path: "/workspace/a.ipynb", new_source: "x" }, "Edit Notebook", [])).toMatchObject({
      tool: "write_file",
      args: { path: "a.ipynb" },
    });
    expect(policyView(undefined, { pattern: "greeting" }, "Grep", [])).toEqual({ tool: "hosted:other", args: { title: "Grep" } });
  });
});
