// The "/terminal" namespace against a real server with real terminal pods:
// output order, a 100 MB stream with a client that never acknowledges
// (bounded server memory), resize, reconnect snapshots, viewer input dropped,
// take over / hand back with the person's input in the event log.
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { io, type Socket } from "socket.io-client";
import { createApiToken, createUser } from "@/server/identity";
import { plainText } from "@/server/compute";
import type { AttachReply, ControlReply, DataMessage, EndedMessage, SnapshotMessage, StatusMessage } from "@/server/realtime";
import { createTestDb, type TestDb } from "./helpers/db";
import { freePort, spawnServer, type ServerProcess } from "./helpers/server-process";
import { waitFor } from "./helpers/wait";

type Turn = { text?: string; toolCalls?: Array<{ tool: string; args: Record<string, unknown> }> };
const shell = (command: string, timeoutSec?: number): Turn => ({
  toolCalls: [{ tool: "shell", args: timeoutSec ? { command, timeoutSec } : { command } }],
});

/** A client of the namespace that records what it gets, and acknowledges data unless told not to. */
class TerminalWatcher {
  readonly socket: Socket;
  snapshots: SnapshotMessage[] = [];
  data: DataMessage[] = [];
  statuses: StatusMessage[] = [];
  ended: EndedMessage[] = [];
  sizes: Array<{ cols: number; rows: number }> = [];
  dataChars = 0;
  private keptChars = 0;

  constructor(
    url: string,
    token: string,
    private readonly runId: string,
    private readonly acks = true,
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
    this.socket.on("ended", (m: EndedMessage) => m.runId === runId && this.ended.push(m));
    this.socket.on("resize", (m: { runId: string; cols: number; rows: number }) => m.runId === runId && this.sizes.push(m));
    this.socket.on("data", (m: DataMessage) => {
      if (m.runId !== runId) return;
      this.dataChars += m.data.length;
      this.data.push(m);
      this.keptChars += m.data.length;
      // Of a huge stream only the end is kept; the rest is counted.
      while (this.keptChars > 4_000_000 && this.data.length > 1) this.keptChars -= this.data.shift()!.data.length;
      if (this.acks) this.socket.emit("ack", { runId, seq: m.seq });
    });
  }

  attach(size: { cols?: number; rows?: number } = {}) {
    return new Promise<AttachReply>((resolve) => this.socket.emit("attach", { runId: this.runId, ...size }, resolve));
  }

  call(event: "takeover" | "handback") {
    return new Promise<ControlReply>((resolve) => this.socket.emit(event, { runId: this.runId }, resolve));
  }

  type(data: string) {
    return new Promise<ControlReply>((resolve) => this.socket.emit("input", { runId: this.runId, data }, resolve));
  }

  /** Everything shown since the last snapshot, as plain text. */
  text() {
    const last = this.snapshots.at(-1);
    const after = this.data.filter((d) => !last || d.seq > last.seq);
    return plainText((last?.data ?? "") + after.map((d) => d.data).join(""));
  }

  /** All the live output received, as plain text. */
  liveText() {
    return plainText(this.data.map((d) => d.data).join(""));
  }

  close() {
    this.socket.close();
  }
}

describe("terminal namespace", () => {
  let t: TestDb;
  let server: ServerProcess;
  const tokens: Record<"operator" | "operator2" | "viewer" | "outsider", string> = {} as never;
  let operatorName = "";

  beforeAll(async () => {
    t = await createTestDb();
    operatorName = "Ada Operator";
    const op = await createUser(t.db, {
      email: "ada@rein.test",
      name: operatorName,
      password: "password-123",
      role: "operator",
      teams: ["alpha"],
    });
    const op2 = await createUser(t.db, {
      email: "grace@rein.test",
      name: "Grace Operator",
      password: "password-123",
      role: "operator",
      teams: ["alpha"],
    });
    const viewer = await createUser(t.db, {
      email: "vic@rein.test",
      name: "Vic Viewer",
      password: "password-123",
      role: "viewer",
      teams: ["alpha"],
    });
    const outsider = await createUser(t.db, { email: "out@rein.test", password: "password-123", role: "operator", teams: ["beta"] });
    tokens.operator = (await createApiToken(t.db, { userId: op, name: "op" })).token;
    tokens.operator2 = (await createApiToken(t.db, { userId: op2, name: "op2" })).token;
    tokens.viewer = (await createApiToken(t.db, { userId: viewer, name: "viewer" })).token;
    tokens.outsider = (await createApiToken(t.db, { userId: outsider, name: "out" })).token;
    await t.db.$disconnect();
    const s = spawnServer({ REIN_DATA_DIR: t.dir, PORT: String(await freePort()), REIN_SCRIPTED_DELAY_MS: "1", REIN_POD_POOL_SIZE: "1" });
    await s.ready;
    server = s;
  });

  afterAll(async () => {
    await server?.kill("SIGTERM");
    await t?.cleanup();
  });

  async function launch(turns: Turn[], goal = "terminal test") {
    const res = await fetch(`${server.url}/api/v1/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${tokens.operator}`, "content-type": "application/json" },
      body: JSON.stringify({ goal, agent: "demo-coder", scenario: { turns } }),
    });
    expect(res.status).toBe(201);
    return (await res.json()).id as string;
  }

  async function run(runId: string) {
    const res = await fetch(`${server.url}/api/v1/runs/${runId}`, { headers: { authorization: `Bearer ${tokens.operator}` } });
    return (await res.json()) as { status: string };
  }

  async function events(runId: string) {
    const res = await fetch(`${server.url}/api/v1/runs/${runId}/events?limit=1000`, {
      headers: { authorization: `Bearer ${tokens.operator}` },
    });
    const body = await res.json();
    return (body.events ?? body.items ?? body) as Array<{ seq: number; type: string; actor: string | null; payload: any }>;
  }

  const settled = (runId: string, limitMs = 60_000) =>
    waitFor(
      async () => ["succeeded", "failed", "canceled"].includes((await run(runId)).status) && (await run(runId)).status,
      `run ${runId} to finish`,
      { limitMs, intervalMs: 100 },
    );

  /** Attaches as soon as the run has its pod; resolves once the first snapshot arrived. */
  async function watch(runId: string, token = tokens.operator, acks = true) {
    const w = new TerminalWatcher(server.url, token, runId, acks);
    const reply = await w.attach();
    expect(reply.ok).toBe(true);
    await waitFor(() => w.snapshots.length > 0, "the first snapshot", { limitMs: 30_000, intervalMs: 20 });
    return w;
  }

  it("refuses sockets without a token, and runs the person may not see", async () => {
    const anonymous = io(`${server.url}/terminal`, { path: "/socket.io", transports: ["websocket"], reconnection: false, forceNew: true });
    const err = await new Promise<Error>((resolve) => anonymous.on("connect_error", resolve));
    expect(err.message).toMatch(/UNAUTHORIZED/);
    anonymous.close();

    const runId = await launch([shell("true")]);
    const outsider = new TerminalWatcher(server.url, tokens.outsider, runId);
    expect(await outsider.attach()).toEqual({ ok: false, code: "NOT_FOUND", error: `Run ${runId} was not found` });
    expect(await outsider.type("echo hi\r")).toEqual({ ok: false, code: "CONFLICT", error: `Attach to run ${runId} first` });
    outsider.close();
    await settled(runId);
  });

  it("streams the output in order, and a finished run's last screen", async () => {
    const runId = await launch([shell("sleep 1"), shell("seq -f 'line-%g' 1 20000")]);
    const w = await watch(runId);
    // A second watcher: each chunk goes to both in one message encoded once.
    const w2 = await watch(runId);
    await settled(runId);
    await waitFor(() => w.statuses.some((s) => s.podId === null), "the terminal to end", { intervalMs: 20 });
    await waitFor(() => w2.statuses.some((s) => s.podId === null), "the terminal to end", { intervalMs: 20 });

    const numbers = [...w.text().matchAll(/^line-(\d+)$/gm)].map((m) => Number(m[1]));
    expect(numbers).toEqual(Array.from({ length: 20000 }, (_, i) => i + 1));
    expect([...w2.text().matchAll(/^line-(\d+)$/gm)].map((m) => Number(m[1]))).toEqual(numbers);
    w2.close();
    const seqs = w.data.filter((d) => d.seq > w.snapshots[0].seq).map((d) => d.seq);
    expect(seqs.length).toBeGreaterThan(1);
    seqs.forEach((seq, i) => i > 0 && expect(seq).toBe(seqs[i - 1] + 1));
    w.close();

    // Opening the tab after the run: no live terminal, but its last screen.
    const later = new TerminalWatcher(server.url, tokens.viewer, runId);
    expect(await later.attach()).toEqual({ ok: true, podId: null, controller: null, canControl: false });
    await waitFor(() => later.ended.length > 0, "the last screen");
    expect(plainText(later.ended[0].data)).toContain("line-20000");
    later.close();
  });

  it("a watcher's screen starts with the pod's first prompt, printed while the pod was warm in the pool", async () => {
    const warm = async () => {
      const res = await fetch(`${server.url}/api/trpc/system.status`, { headers: { authorization: `Bearer ${tokens.operator}` } });
      return ((await res.json()).result.data.json.terminals.warm as number) > 0;
    };
    await waitFor(warm, "a warm pod in the pool", { limitMs: 30_000, intervalMs: 100 });
    const runId = await launch([shell("sleep 2")]);
    const w = await watch(runId);
    await waitFor(() => /sleep 2/.test(w.text()), "the agent's command", { intervalMs: 20 });
    const attached = (await events(runId)).find((e) => e.type === "terminal.attached");
    expect(attached?.payload.fromPool).toBe(true);
    // The first line of the screen is the prompt the command was typed at; nothing before it, nothing twice.
    expect(w.text().split("\n")[0]).toMatch(/^\S+ \$ sleep 2$/);
    expect(w.text().match(/sleep 2/g)).toHaveLength(1);
    w.close();
    await settled(runId);
  });

  it("streams 100 MB with bounded server memory while a client never acknowledges; it catches up with a snapshot", async () => {
    const pid = server.child.pid!;
    const rss = () => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
    const runId = await launch([
      shell("sleep 1"),
      shell("head -c 100000000 /dev/zero | tr '\\0' 'x' | fold -w 200; echo stream-done", 900),
    ]);
    const fast = await watch(runId);
    const slow = await watch(runId, tokens.viewer, false);
    const start = rss();
    let peak = start;
    const sampler = setInterval(() => (peak = Math.max(peak, rss())), 100);
    try {
      await settled(runId, 400_000);
    } finally {
      clearInterval(sampler);
    }
    console.log(`100 MB stream: server RSS ${Math.round(start / 2 ** 20)} MiB at the start, ${Math.round(peak / 2 ** 20)} MiB at the peak`);
    expect(peak - start).toBeLessThan(400 * 1024 * 1024);
    // The acknowledging client saw the end; the other one stopped at about 1 MiB and stayed connected.
    await waitFor(() => /stream-done/.test(fast.text()), "the end of the stream in the fast client", { limitMs: 30_000 });
    expect(fast.dataChars).toBeGreaterThan(1_000_000);
    expect(slow.socket.connected).toBe(true);
    expect(slow.dataChars).toBeGreaterThan(0);
    expect(slow.dataChars).toBeLessThan(1024 * 1024 + 256 * 1024);
    expect(slow.snapshots).toHaveLength(1);

    // The slow client acknowledges what it has: the run has ended, so it is sent the last screen.
    slow.socket.emit("ack", { runId, seq: slow.data.at(-1)!.seq });
    await waitFor(() => slow.ended.length > 0 || slow.snapshots.length > 1, "the slow client to catch up");
    const caughtUp = slow.snapshots.length > 1 ? slow.snapshots.at(-1)!.data : slow.ended.at(-1)!.data;
    expect(plainText(caughtUp).includes("stream-done")).toBe(true);
    fast.close();
    slow.close();
  });

  it("a slow client that catches up while the terminal is live gets a fresh snapshot", async () => {
    const runId = await launch([
      shell("sleep 1"),
      shell("head -c 5000000 /dev/zero | tr '\\0' 'y' | fold -w 100; echo burst-done"),
      shell("sleep 3"),
    ]);
    const slow = await watch(runId, tokens.viewer, false);
    await waitFor(() => slow.dataChars > 1024 * 1024 - 70_000, "the slow client to fill up", { limitMs: 30_000 });
    await waitFor(async () => (await events(runId)).filter((e) => e.type === "tool.result").length >= 2, "the burst to finish", {
      limitMs: 30_000,
      intervalMs: 100,
    });
    expect(slow.dataChars).toBeLessThan(1024 * 1024 + 70_000);
    expect(slow.snapshots).toHaveLength(1);
    // It acknowledges what it has: a snapshot of the current screen follows, then live data.
    // Live data may follow the snapshot before the checks below, so what was acknowledged is kept.
    const acked = slow.data.at(-1)!.seq;
    slow.socket.emit("ack", { runId, seq: acked });
    await waitFor(() => slow.snapshots.length > 1, "a fresh snapshot");
    expect(slow.ended).toEqual([]);
    expect(plainText(slow.snapshots[1].data).includes("burst-done")).toBe(true);
    expect(slow.snapshots[1].seq).toBeGreaterThan(acked);
    // Nothing reached the client between what it acknowledged and the snapshot.
    expect(slow.data.filter((d) => d.seq > acked && d.seq <= slow.snapshots[1].seq)).toEqual([]);
    await settled(runId);
    await waitFor(() => slow.statuses.some((s) => s.podId === null), "the end of the terminal");
    // Live data followed the snapshot (at least the prompt after the last command).
    expect(slow.data.some((d) => d.seq > slow.snapshots[1].seq)).toBe(true);
    slow.close();
  });

  it("take over: the run pauses, only the controller types, resize reaches the pod, hand back resumes with the input logged", async () => {
    const runId = await launch([shell("sleep 3"), shell("echo agent-is-back")]);
    const ada = await watch(runId);
    const grace = await watch(runId, tokens.operator2);
    const vic = await watch(runId, tokens.viewer);
    await waitFor(() => /sleep 3/.test(ada.text()), "the agent's first command", { intervalMs: 20 });

    // Nobody controls it: nobody types.
    expect((await vic.type("echo viewer-was-here\r")).ok).toBe(false);
    expect(await vic.call("takeover")).toEqual({ ok: false, error: "Taking over the terminal needs the operator role" });

    const took = await ada.call("takeover");
    expect(took.ok).toBe(true);
    expect(await grace.call("takeover")).toEqual({
      ok: false,
      error: `${operatorName} is controlling the terminal; they (or an admin) must hand it back first`,
    });
    await waitFor(() => vic.statuses.some((s) => s.controller?.name === operatorName), "viewers to learn who controls it");
    // Until the step ends the person cannot type (unless the sleep already ended).
    const early = await ada.type("echo too-early\r");
    if (!early.ok) expect(early.error).toMatch(/finishing its current step/);
    await waitFor(async () => (await run(runId)).status === "paused", "the run to pause", { intervalMs: 50 });
    await waitFor(() => ada.statuses.some((s) => s.ready === true), "control to be ready", { intervalMs: 20 });

    // Viewers and other operators are dropped on the server, whatever their UI does.
    expect((await vic.type("echo viewer-was-here\r")).ok).toBe(false);
    expect((await grace.type("echo operator-was-here\r")).ok).toBe(false);
    vic.socket.emit("resize", { runId, cols: 33, rows: 11 });

    ada.socket.emit("resize", { runId, cols: 100, rows: 30 });
    await waitFor(() => ada.sizes.some((s) => s.cols === 100 && s.rows === 30), "the new size");
    expect((await ada.type("stty size\r")).ok).toBe(true);
    await waitFor(() => /^30 100$/m.test(ada.text()), "stty to print the new size", { intervalMs: 20 });
    expect((await ada.type("echo hello-from-$((40+2))\r")).ok).toBe(true);
    await waitFor(() => /^hello-from-42$/m.test(vic.text()), "the person's command output, seen by the viewer", { intervalMs: 20 });

    // A reconnecting client gets the screen, with the person's output on it.
    vic.close();
    const again = await watch(runId, tokens.viewer);
    expect(again.snapshots[0].cols).toBe(100);
    expect(plainText(again.snapshots[0].data)).toMatch(/^hello-from-42$/m);
    again.close();

    expect((await grace.call("handback")).ok).toBe(false);
    const back = await ada.call("handback");
    expect(back.ok).toBe(true);
    expect(await settled(runId)).toBe("succeeded");
    await waitFor(() => /^agent-is-back$/m.test(ada.liveText()), "the agent's next command");

    const output = ada.liveText();
    expect(output).not.toMatch(/viewer-was-here|operator-was-here/);
    const log = await events(runId);
    const inputs = log.filter((e) => e.type === "terminal.input");
    expect(inputs.map((e) => e.payload.text)).toEqual(
      early.ok ? ["echo too-early", "stty size", "echo hello-from-$((40+2))"] : ["stty size", "echo hello-from-$((40+2))"],
    );
    expect(inputs.every((e) => e.payload.byName === operatorName && e.actor === e.payload.by)).toBe(true);
    expect(log.filter((e) => e.type === "terminal.control").map((e) => [e.payload.action, e.payload.byName])).toEqual([
      ["takeover", operatorName],
      ["handback", operatorName],
    ]);
    const note = log.find((e) => e.type === "human.note");
    expect(note?.payload.text).toContain(`${operatorName} took over the terminal`);
    expect(note?.payload.text).toContain("$ echo hello-from-$((40+2))");
    expect(note?.payload.text).toContain("hello-from-42");
    const types = log.map((e) => e.type);
    expect(types.indexOf("human.note")).toBeLessThan(types.lastIndexOf("model.turn"));
    ada.close();
    grace.close();
  });
});
