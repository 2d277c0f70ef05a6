// Who controls a run's terminal survives a server restart: the second server
// reads it from the event log, keeps the run paused (or pauses a recovered
// run again), and gives the person a shell over the run's workspace.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { io, type Socket } from "socket.io-client";
import { createApiToken, createUser } from "@/server/identity";
import { plainText } from "@/server/compute";
import type { AttachReply, ControlReply, DataMessage, SnapshotMessage, StatusMessage } from "@/server/realtime";
import { createTestDb, type TestDb } from "./helpers/db";
import { freePort, spawnServer, type ServerProcess } from "./helpers/server-process";
import { waitFor } from "./helpers/wait";

type Turn = { text?: string; toolCalls?: Array<{ tool: string; args: Record<string, unknown> }> };
const shell = (command: string, text?: string): Turn => ({ ...(text ? { text } : {}), toolCalls: [{ tool: "shell", args: { command } }] });

/** One person's view of a run's terminal. */
class Watcher {
  readonly socket: Socket;
  snapshots: SnapshotMessage[] = [];
  data: DataMessage[] = [];
  statuses: StatusMessage[] = [];

  constructor(
    url: string,
    token: string,
    private readonly runId: string,
  ) {
    this.socket = io(`${url}/terminal`, {
      path: "/socket.io",
      transports: ["websocket"],
      auth: { token },
      reconnection: false,
      forceNew: true,
    });
    this.socket.on("snapshot", (m: SnapshotMessage) => m.runId === runId && this.snapshots.push(m));
    this.socket.on("status", (m: StatusMessage) => m.runId === runId && this.statuses.push(m));
    this.socket.on("data", (m: DataMessage) => {
      if (m.runId !== runId) return;
      this.data.push(m);
      this.socket.emit("ack", { runId, seq: m.seq });
    });
  }

  attach() {
    return new Promise<AttachReply>((resolve) => this.socket.emit("attach", { runId: this.runId }, resolve));
  }

  call(event: "takeover" | "handback") {
    return new Promise<ControlReply>((resolve) => this.socket.emit(event, { runId: this.runId }, resolve));
  }

  type(data: string) {
    return new Promise<ControlReply>((resolve) => this.socket.emit("input", { runId: this.runId, data }, resolve));
  }

  text() {
    const last = this.snapshots.at(-1);
    return plainText(
      (last?.data ?? "") +
        this.data
          .filter((d) => !last || d.seq > last.seq)
          .map((d) => d.data)
          .join(""),
    );
  }

  close() {
    this.socket.close();
  }
}

describe("terminal control across a server restart", () => {
  let t: TestDb;
  const tokens = { ada: "", grace: "" };
  let servers: ServerProcess[] = [];

  beforeEach(async () => {
    t = await createTestDb();
    const ada = await createUser(t.db, { email: "ada@rein.test", name: "Ada", password: "password-123", role: "operator" });
    const grace = await createUser(t.db, { email: "grace@rein.test", name: "Grace", password: "password-123", role: "operator" });
    tokens.ada = (await createApiToken(t.db, { userId: ada, name: "ada" })).token;
    tokens.grace = (await createApiToken(t.db, { userId: grace, name: "grace" })).token;
    await t.db.$disconnect();
  });

  afterEach(async () => {
    await Promise.all(servers.map((s) => s.kill()));
    servers = [];
    await t.cleanup();
  });

  async function start(delayMs = "1") {
    const s = spawnServer({
      REIN_DATA_DIR: t.dir,
      PORT: String(await freePort()),
      REIN_SCRIPTED_DELAY_MS: delayMs,
      REIN_POD_POOL_SIZE: "1",
      REIN_WORKERS: "1",
    });
    servers.push(s);
    await s.ready;
    return s;
  }

  async function api(s: ServerProcess, path: string, body?: unknown) {
    const res = await fetch(s.url + path, {
      method: body ? "POST" : "GET",
      headers: { authorization: `Bearer ${tokens.ada}`, "content-type": "application/json" },
      body: body ? JSON.stringify(body) : undefined,
    });
    expect(res.ok, `${path}: ${res.status}`).toBe(true);
    return res.json();
  }

  const status = async (s: ServerProcess, runId: string) => ((await api(s, `/api/v1/runs/${runId}`)) as { status: string }).status;
  const events = async (s: ServerProcess, runId: string) => {
    const body = await api(s, `/api/v1/runs/${runId}/events?limit=1000`);
    return (body.events ?? body.items ?? body) as Array<{ type: string; payload: any }>;
  };

  async function watch(s: ServerProcess, token: string, runId: string) {
    const w = new Watcher(s.url, token, runId);
    const reply = await w.attach();
    expect(reply.ok).toBe(true);
    return { w, reply };
  }

  /** Ada takes over on the new server: types, sees the output, hands back; the agent finishes. */
  async function handBackAfterRestart(s: ServerProcess, runId: string, before: string | null) {
    const { w: ada, reply } = await watch(s, tokens.ada, runId);
    expect(reply).toMatchObject({ ok: true, controller: { name: "Ada" } });
    await waitFor(() => ada.snapshots.length > 0, "a shell on the new server", { limitMs: 30_000, intervalMs: 20 });
    expect((await ada.type("echo after-$((40+2))\r")).ok).toBe(true);
    await waitFor(() => /^after-42$/m.test(ada.text()), "the person's command output", { intervalMs: 20 });
    expect(await ada.call("handback")).toMatchObject({ ok: true });
    await waitFor(async () => (await status(s, runId)) === "succeeded", "the run to finish", { limitMs: 30_000, intervalMs: 100 });
    ada.close();

    const log = await events(s, runId);
    expect(log.filter((e) => e.type === "terminal.control").map((e) => [e.payload.action, e.payload.byName])).toEqual([
      ["takeover", "Ada"],
      ["handback", "Ada"],
    ]);
    const note = log.find((e) => e.type === "human.note")?.payload.text as string;
    expect(note).toContain("Ada took over the terminal");
    if (before) expect(note).toContain(`$ ${before}`);
    expect(note).toContain("$ echo after-$((40+2))");
  }

  it("a paused run stays with the person who took it over when the server restarts; they get a shell again", async () => {
    let server = await start();
    const run = await api(server, "/api/v1/runs", {
      goal: "restart with a person at the keyboard",
      agent: "demo-coder",
      scenario: { turns: [shell("sleep 2"), shell("echo agent-is-back")] },
    });
    const runId = run.id as string;
    const { w: ada } = await watch(server, tokens.ada, runId);
    await waitFor(() => /sleep 2/.test(ada.text()), "the agent's first command", { limitMs: 30_000, intervalMs: 20 });
    expect((await ada.call("takeover")).ok).toBe(true);
    await waitFor(() => ada.statuses.some((st) => st.ready), "control to be ready", { limitMs: 30_000, intervalMs: 20 });
    expect((await ada.type("echo before-restart\r")).ok).toBe(true);
    await waitFor(() => /^before-restart$/m.test(ada.text()), "the output", { intervalMs: 20 });
    ada.close();

    // A clean stop takes the pods down; it must not hand the terminal back.
    await server.kill("SIGTERM");
    server = await start();

    const { w: grace, reply } = await watch(server, tokens.grace, runId);
    expect(reply).toMatchObject({ ok: true, controller: { name: "Ada" } });
    expect(reply.ok && reply.podId).toBeTruthy();
    expect(await grace.call("takeover")).toEqual({
      ok: false,
      error: "Ada is controlling the terminal; they (or an admin) must hand it back first",
    });
    expect((await grace.type("echo grace-was-here\r")).ok).toBe(false);
    await new Promise((r) => setTimeout(r, 500));
    expect(await status(server, runId)).toBe("paused");
    grace.close();

    await handBackAfterRestart(server, runId, "echo before-restart");
  });

  it("a run killed before it paused for the person is paused again by the next server", async () => {
    // The first model turn streams for a few seconds: the take over waits for it, and the server dies meanwhile.
    const words = Array.from({ length: 150 }, (_, i) => `word${i}`).join(" ");
    let server = await start("25");
    const run = await api(server, "/api/v1/runs", {
      goal: "restart while a take over waits",
      agent: "demo-coder",
      scenario: { turns: [shell("echo first"), shell("echo second", words), shell("echo agent-is-back")] },
    });
    const runId = run.id as string;
    const { w: ada } = await watch(server, tokens.ada, runId);
    await waitFor(() => /^first$/m.test(ada.text()), "the first command", { limitMs: 30_000, intervalMs: 20 });
    const took = await ada.call("takeover");
    expect(took).toMatchObject({ ok: true, message: expect.stringMatching(/finishing its current step/) });
    expect(await status(server, runId)).toBe("running");
    await server.kill("SIGKILL");

    server = await start("1");
    const { w: grace, reply } = await watch(server, tokens.grace, runId);
    expect(reply).toMatchObject({ ok: true, controller: { name: "Ada" } });
    await waitFor(async () => (await status(server, runId)) === "paused", "the recovered run to pause again", {
      limitMs: 30_000,
      intervalMs: 100,
    });
    await waitFor(() => grace.statuses.some((st) => st.controller?.name === "Ada" && st.ready), "Ada's control to be ready", {
      intervalMs: 20,
    });
    // The step that was under way finished; the agent's next command did not run.
    expect((await events(server, runId)).some((e) => e.type === "tool.call" && JSON.stringify(e.payload).includes("agent-is-back"))).toBe(
      false,
    );
    grace.close();

    await handBackAfterRestart(server, runId, null);
  });
});
