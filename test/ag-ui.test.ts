// AG-UI (docs/ag-ui.md) through @ag-ui/client's own HttpAgent on a real HTTP
// server: an operator starts demo-deploy and follows it until its deploy
// waits for approval (an interrupt), an approver answers the interrupt and
// sees the run finish, and a viewer watches the whole run on the GET stream.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { HttpAgent, type BaseEvent, type Interrupt, type RunAgentInput } from "@ag-ui/client";
import { EventType } from "@ag-ui/core";
import { createApiToken } from "@/server/identity";
import { createRun } from "@/server/kernel";
import { createTestKernel, type TestKernel } from "./helpers/kernel";
import { startRestServer, type RestTestServer } from "./helpers/rest";
import { testServices } from "./helpers/services";
import { waitFor } from "./helpers/wait";

let tk: TestKernel;
let rest: RestTestServer;
const tokens = {} as Record<"viewer" | "operator" | "approver", string>;

/** HttpAgent reads a stream with GET instead of POSTing a RunAgentInput: how a watcher follows a run. */
class WatchingAgent extends HttpAgent {
  protected override requestInit(): RequestInit {
    return { method: "GET", headers: { ...this.headers, Accept: "text/event-stream" }, signal: this.abortController.signal };
  }
}

function agentFor(role: keyof typeof tokens, threadId?: string) {
  const agent = new HttpAgent({ url: `${rest.base}/api/v1/ag-ui`, headers: { Authorization: `Bearer ${tokens[role]}` }, threadId });
  const events: BaseEvent[] = [];
  agent.subscribe({
    onEvent: ({ event }) => void events.push(event),
    // A new thread is a new run: its id comes back as RUN_STARTED's threadId (docs/ag-ui.md#starting-a-run).
    onRunStartedEvent: ({ event }) => void (agent.threadId = event.threadId),
  });
  return { agent, events };
}

const types = (events: BaseEvent[]) => events.map((e) => e.type);

beforeAll(async () => {
  tk = await createTestKernel({ hitl: true });
  for (const role of ["viewer", "operator", "approver"] as const)
    tokens[role] = (await createApiToken(tk.t.db, { userId: tk.users[role], name: role })).token;
  rest = await startRestServer(testServices(tk));
});

afterAll(async () => {
  await rest?.close();
  await tk?.cleanup();
});

describe("a demo-deploy run over AG-UI", () => {
  let runId: string;
  let interrupt: Interrupt;
  let watched: Promise<unknown>;
  const watcherEvents: BaseEvent[] = [];

  it("an operator starts it with a RunAgentInput and follows it until the deploy waits for approval", async () => {
    const { agent, events } = agentFor("operator");
    agent.messages = [{ id: "goal", role: "user", content: "Deploy version 1.4.0 to production" }];
    await agent.runAgent({ forwardedProps: { agent: "demo-deploy" } });

    runId = agent.threadId;
    expect(await tk.t.db.run.findUnique({ where: { id: runId }, select: { agentName: true } })).toEqual({ agentName: "demo-deploy" });
    expect(types(events)[0]).toBe(EventType.RUN_STARTED);
    expect(types(events)).toEqual(
      expect.arrayContaining([
        EventType.TEXT_MESSAGE_START,
        EventType.TOOL_CALL_START,
        EventType.TOOL_CALL_ARGS,
        EventType.TOOL_CALL_RESULT,
      ]),
    );
    const finished = events.at(-1) as BaseEvent & { outcome: { type: string; interrupts: Interrupt[] } };
    expect(finished.type).toBe(EventType.RUN_FINISHED);
    expect(finished.outcome.type).toBe("interrupt");
    expect(agent.pendingInterrupts).toHaveLength(1);
    interrupt = agent.pendingInterrupts[0];
    const request = await tk.t.db.humanRequest.findFirstOrThrow({ where: { runId, state: "PENDING" } });
    expect(interrupt).toMatchObject({ id: request.id, reason: "approve", toolCallId: "call_2_0" });
    expect(interrupt.message).toContain("./deploy.sh production");
    // The tool call the interrupt is about reached the client with its arguments.
    const args = events.find((e) => e.type === EventType.TOOL_CALL_ARGS && (e as { toolCallId?: string }).toolCallId === "call_2_0");
    expect(JSON.parse((args as unknown as { delta: string }).delta)).toEqual({ command: "./deploy.sh production" });
    expect(agent.messages.some((m) => m.role === "assistant" && String(m.content).includes("Deploying to production"))).toBe(true);
  });

  it("a viewer watches it on the GET stream from its start, and sees the interrupt", async () => {
    const watcher = new WatchingAgent({
      url: `${rest.base}/api/v1/runs/${runId}/ag-ui`,
      headers: { Authorization: `Bearer ${tokens.viewer}` },
    });
    watcher.subscribe({ onEvent: ({ event }) => void watcherEvents.push(event) });
    watched = watcher.runAgent();
    await waitFor(() => watcherEvents.some((e) => e.type === EventType.RUN_FINISHED), "the watcher's interrupt");
    const finished = watcherEvents.find((e) => e.type === EventType.RUN_FINISHED) as BaseEvent & { outcome: { interrupts: Interrupt[] } };
    expect(finished.outcome.interrupts.map((i) => i.id)).toEqual([interrupt.id]);
  });

  it("the operator cannot answer the interrupt (the request needs an approver), and it stays open", async () => {
    const { agent } = agentFor("operator", runId);
    // HttpAgent logs the refusal it throws.
    const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      await expect(
        agent.runAgent({ resume: [{ interruptId: interrupt.id, status: "resolved", payload: { decision: "approve" } }] }),
      ).rejects.toThrow(/403/);
    } finally {
      quiet.mockRestore();
    }
    expect((await tk.t.db.humanRequest.findUniqueOrThrow({ where: { id: interrupt.id } })).state).toBe("PENDING");
  });

  it("an approver approves the deploy through the interrupt and follows the run to its end", async () => {
    const { agent, events } = agentFor("approver", runId);
    await agent.runAgent({
      resume: [{ interruptId: interrupt.id, status: "resolved", payload: { decision: "approve", comment: "ship it" } }],
    });

    expect(await tk.t.db.humanRequest.findUniqueOrThrow({ where: { id: interrupt.id } })).toMatchObject({
      state: "APPROVED",
      channel: "api",
    });
    expect(types(events)[0]).toBe(EventType.RUN_STARTED);
    expect(events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, threadId: runId, outcome: { type: "success" } });
    const result = events.find((e) => e.type === EventType.TOOL_CALL_RESULT && (e as { toolCallId?: string }).toolCallId === "call_2_0");
    expect((result as unknown as { content: string }).content).toContain("Deployed version 1.4.0 to production");
    expect(agent.messages.some((m) => m.role === "assistant" && String(m.content).includes("Deployed version 1.4.0"))).toBe(true);
    expect((await tk.t.db.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe("succeeded");
  });

  it("the viewer's stream went on after the answer and ended with the run", async () => {
    await watched;
    const runs = watcherEvents.filter((e) => e.type === EventType.RUN_STARTED || e.type === EventType.RUN_FINISHED);
    expect(runs.map((e) => [e.type, (e as { outcome?: { type: string } }).outcome?.type])).toEqual([
      [EventType.RUN_STARTED, undefined],
      [EventType.RUN_FINISHED, "interrupt"],
      [EventType.RUN_STARTED, undefined],
      [EventType.RUN_FINISHED, "success"],
    ]);
  });
  it("the operator sends the ended run a message through its thread, and follows it to its new end", async () => {
    const { agent, events } = agentFor("operator", runId);
    agent.messages = [{ id: "question", role: "user", content: "Which version did you deploy?" }];
    await agent.runAgent();

    const said = await tk.t.db.runEvent.findFirst({ where: { runId, type: "user.message" } });
    expect(JSON.parse(said!.payload)).toMatchObject({ text: "Which version did you deploy?", byName: "operator" });
    expect(events).toContainEqual(expect.objectContaining({ type: EventType.TEXT_MESSAGE_START, role: "user" }));
    expect(
      events.filter((e) => e.type === EventType.TEXT_MESSAGE_START && (e as { role?: string }).role === "assistant").length,
    ).toBeGreaterThan(0);
    expect(events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: "success" } });
  });
});

describe("the GET stream", () => {
  it("stops tailing when the client goes away", async () => {
    const run = await createRun(tk.kernel, { goal: "Deploy version 1.4.0 to staging", agent: "demo-deploy" }, tk.actors.operator);
    await waitFor(() => tk.t.db.humanRequest.findFirst({ where: { runId: run.id, state: "PENDING" } }), "the approval request");
    const bus = tk.kernel.bus;
    let listening = 0;
    const onRun = bus.onRun.bind(bus);
    const spy = vi.spyOn(bus, "onRun").mockImplementation((id, listener) => {
      if (id !== run.id) return onRun(id, listener);
      listening++;
      const off = onRun(id, listener);
      return () => {
        listening--;
        off();
      };
    });
    try {
      const abort = new AbortController();
      const res = await fetch(`${rest.base}/api/v1/runs/${run.id}/ag-ui`, {
        headers: { authorization: `Bearer ${tokens.viewer}` },
        signal: abort.signal,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
      const reader = res.body!.getReader();
      let text = "";
      while (!text.includes("RUN_FINISHED")) text += new TextDecoder().decode((await reader.read()).value);
      expect(listening).toBe(1);
      abort.abort();
      await waitFor(() => listening === 0, "the stream to stop listening");
    } finally {
      spy.mockRestore();
    }
  });

  it("replays after Last-Event-ID: nothing before it is sent again", async () => {
    const run = await createRun(tk.kernel, { goal: "Deploy version 1.4.0 to qa", agent: "demo-deploy" }, tk.actors.operator);
    await waitFor(() => tk.t.db.humanRequest.findFirst({ where: { runId: run.id, state: "PENDING" } }), "the approval request");
    const read = async (headers: Record<string, string>) => {
      const abort = new AbortController();
      const res = await fetch(`${rest.base}/api/v1/runs/${run.id}/ag-ui`, {
        headers: { authorization: `Bearer ${tokens.viewer}`, ...headers },
        signal: abort.signal,
      });
      const reader = res.body!.getReader();
      let text = "";
      while (!text.includes("RUN_FINISHED")) text += new TextDecoder().decode((await reader.read()).value);
      abort.abort();
      return text;
    };
    const all = await read({});
    const ids = [...all.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids[0]).toBe(1);
    const from = ids[Math.floor(ids.length / 2)];
    const after = await read({ "last-event-id": String(from) });
    const later = [...after.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(later).toEqual(ids.filter((id) => id > from));
    // The interrupt is still found: the stream remembered the request made before its cursor.
    expect(after).toMatch(/"outcome":\{"type":"interrupt"/);
  });
});
