// An agent hands a subtask to a remote A2A agent (docs/a2a.md#remote-agents):
// the remote here is another Rein's A2A endpoint on a loopback port, serving
// demo-coder, reached through call_remote_agent with the SDK's client on both
// sides. The call is a tool call like any other on the run's timeline; the
// remote's token never appears in it; a remote on a private network is refused
// unless the admin said it lives there.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentDepsOf, createAgent } from "@/server/agents";
import { createApiToken } from "@/server/identity";
import { createRun, type RunEventRecord } from "@/server/kernel";
import { DEFAULT_POLICY, savePolicy } from "@/server/policy";
import { putSecret, setSecretScope } from "@/server/secrets";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { testServices } from "@/test/helpers/services";
import { startA2aServer, type A2aTestServer } from "@/test/helpers/a2a";
import { guardedFetch } from "./remote-fetch";
import { REMOTE_AGENT_TOOL, exposeAgent, remoteAgentTool, removeRemoteAgent, saveRemoteAgent, type ExposedAgent } from "./index";

let tk: TestKernel;
/** The other Rein, whose demo-coder is the remote agent. */
let remote: TestKernel;
let a2a: A2aTestServer;
let coder: ExposedAgent;
let token: string;

const callScenario = (args: Record<string, unknown>) => ({
  turns: [
    { text: "Handing the code to the remote coder.", toolCalls: [{ tool: REMOTE_AGENT_TOOL, args }] },
    { text: "The remote coder is done." },
  ],
});

async function runDelegator(args: Record<string, unknown>) {
  const run = await createRun(
    tk.kernel,
    { agent: "delegator", goal: "Get fizzbuzz written", scenario: callScenario(args) },
    tk.actors.operator,
  );
  const state = await tk.settle(run.id);
  const events = await tk.kernel.store.listEvents(run.id, 0, 1_000);
  const result = events.find((e) => e.type === "tool.result")?.payload as {
    ok: boolean;
    output?: any;
    error?: { code: string; message: string };
  };
  return { run, state, events, result };
}

beforeAll(async () => {
  tk = await createTestKernel({ hitl: true, secrets: true });
  const db = tk.t.db;
  tk.kernel.deps.registry.register(remoteAgentTool({ db, keyring: tk.keyring! }));
  remote = await createTestKernel({ hitl: true, secrets: true });
  token = (await createApiToken(remote.t.db, { userId: remote.users.operator, name: "from the other Rein" })).token;
  await putSecret(db, tk.keyring!, { name: "REMOTE_CODER_TOKEN", value: token, actor: null });
  // Like any secret, the token is for the agents and teams an admin names.
  await setSecretScope(
    db,
    { name: "REMOTE_CODER_TOKEN", scope: { agents: ["delegator"], teams: ["*"] } },
    { userId: tk.users.admin, name: "admin", channel: "api" },
  );
  coder = await exposeAgent(remote.t.db, remote.actors.admin, { agent: "demo-coder" });
  a2a = await startA2aServer(testServices(remote));
  await createAgent(
    agentDepsOf(tk.kernel),
    { actor: tk.actors.admin, channel: "api" },
    {
      name: "delegator",
      instructions: "You hand coding to the remote coder.",
      model: "scripted/demo-coder",
      tools: [REMOTE_AGENT_TOOL],
      teamId: null,
    },
  );
});

afterAll(async () => {
  await a2a?.close();
  await tk?.cleanup();
  await remote?.cleanup();
});

describe("call_remote_agent", () => {
  it("runs a subtask on a remote A2A agent and gives the agent its answer and artifacts", async () => {
    await saveRemoteAgent(tk.t.db, tk.actors.admin, "coder", {
      url: a2a.agentBase(coder.id),
      tokenSecret: "REMOTE_CODER_TOKEN",
      privateNetwork: true,
    });
    const { state, events, result } = await runDelegator({ agent: "coder", message: "Write fizzbuzz" });
    expect(state).toBe("succeeded");
    expect(result.ok, JSON.stringify(result.error)).toBe(true);
    expect(result.output).toMatchObject({ agent: "coder", state: "completed" });
    const files = result.output.artifacts.find((a: { name: string }) => a.name === "files");
    expect(files.text).toContain("export function fizzbuzz");
    // The remote task is a run of demo-coder on the remote, started by the token's person.
    const remoteRun = await remote.t.db.run.findUniqueOrThrow({ where: { id: result.output.taskId } });
    expect(remoteRun).toMatchObject({ agentName: "demo-coder", goal: "Write fizzbuzz", createdById: remote.users.operator });
    // A tool call like any other: on the timeline, and the token nowhere in it.
    const call = events.find((e: RunEventRecord) => e.type === "tool.call")!;
    expect(call.payload).toMatchObject({ tool: REMOTE_AGENT_TOOL });
    expect(JSON.stringify(events)).not.toContain(token);
  });

  it("a remote on this machine is refused unless the admin said it is on a private network", async () => {
    await saveRemoteAgent(tk.t.db, tk.actors.admin, "coder", { url: a2a.agentBase(coder.id), tokenSecret: "REMOTE_CODER_TOKEN" });
    const before = await remote.t.db.run.count();
    const { result } = await runDelegator({ agent: "coder", message: "Write fizzbuzz" });
    expect(result).toMatchObject({ ok: false, error: { code: "REFUSED" } });
    expect(result.error!.message).toMatch(/private network/);
    expect(await remote.t.db.run.count()).toBe(before);
  });

  it("an unknown remote is an error naming the ones there are", async () => {
    await saveRemoteAgent(tk.t.db, tk.actors.admin, "coder", {
      url: a2a.agentBase(coder.id),
      tokenSecret: "REMOTE_CODER_TOKEN",
      privateNetwork: true,
    });
    const { result } = await runDelegator({ agent: "nobody", message: "Write fizzbuzz" });
    expect(result).toMatchObject({ ok: false, error: { code: "UNKNOWN_AGENT" } });
    expect(result.error!.message).toMatch(/coder/);
  });

  it("is under the policy like any tool: a rule can deny it", async () => {
    const source = `${DEFAULT_POLICY}\n  - name: no remote agents for the operator\n    actor: operator@test.local\n    tool: call_remote_agent\n    decision: deny\n`;
    await savePolicy(tk.t.db, { source, comment: "no remotes", actor: { id: tk.users.admin, name: "admin" } });
    tk.hitl!.policy.invalidate();
    try {
      const before = await remote.t.db.run.count();
      const { result } = await runDelegator({ agent: "coder", message: "Write fizzbuzz" });
      expect(result).toMatchObject({ ok: false, error: { code: "POLICY_DENIED" } });
      expect(await remote.t.db.run.count()).toBe(before);
    } finally {
      await savePolicy(tk.t.db, { source: DEFAULT_POLICY, comment: "back", actor: { id: tk.users.admin, name: "admin" } });
      tk.hitl!.policy.invalidate();
    }
  });

  it("a name that resolves to this machine, another port of an allowed host, or a non-HTTP address is refused before any connection", async () => {
    const toLoopback = async () => [{ address: "127.0.0.1", family: 4 }];
    const refused = (allowHosts: string[], url: string) => guardedFetch({ allowHosts, timeoutMs: 1_000, lookup: toLoopback })(url);
    await expect(refused([], "http://agents.example/a2a")).rejects.toThrow(/private network/);
    await expect(refused(["agents.example:8080"], "http://agents.example:9090/a2a")).rejects.toThrow(/another port/);
    await expect(refused([], "ftp://agents.example/a2a")).rejects.toThrow(/http/);
  });

  it("only admins add or remove remote agents, and a token secret must exist", async () => {
    await expect(saveRemoteAgent(tk.t.db, tk.actors.operator, "other", { url: "https://agents.example/a" })).rejects.toThrow(/admin/);
    await expect(
      saveRemoteAgent(tk.t.db, tk.actors.admin, "other", { url: "https://agents.example/a", tokenSecret: "NOPE" }),
    ).rejects.toThrow(/No secret is named NOPE/);
    await expect(saveRemoteAgent(tk.t.db, tk.actors.admin, "other", { url: "file:///etc/passwd" })).rejects.toThrow(/http/);
    await expect(removeRemoteAgent(tk.t.db, tk.actors.operator, "coder")).rejects.toThrow(/admin/);
    expect(await removeRemoteAgent(tk.t.db, tk.actors.admin, "coder")).toBe(true);
  });
});
