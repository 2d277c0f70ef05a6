// The socket.io tail of the event log against a real server: snapshot plus
// live events in order, resume from a cursor, and refusals.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { io, type Socket } from "socket.io-client";
import { createApiToken, createUser } from "@/server/identity";
import { createTestDb, type TestDb } from "./helpers/db";
import { freePort, spawnServer, type ServerProcess } from "./helpers/server-process";

type Ev = { seq: number; type: string; payload: any };

describe("realtime run tail", () => {
  let t: TestDb;
  let server: ServerProcess;
  let operator: string;
  let outsider: string;

  beforeAll(async () => {
    t = await createTestDb();
    const op = await createUser(t.db, { email: "op@rein.test", password: "password-123", role: "operator", teams: ["alpha"] });
    const other = await createUser(t.db, { email: "other@rein.test", password: "password-123", role: "operator", teams: ["beta"] });
    operator = (await createApiToken(t.db, { userId: op, name: "op" })).token;
    outsider = (await createApiToken(t.db, { userId: other, name: "other" })).token;
    await t.db.$disconnect();
    const s = spawnServer({ REIN_DATA_DIR: t.dir, PORT: String(await freePort()), REIN_SCRIPTED_DELAY_MS: "15" });
    await s.ready;
    server = s;
  });

  afterAll(async () => {
    await server?.kill("SIGTERM");
    await t.cleanup();
  });

  const connect = (token?: string) =>
    io(`${server.url}/runs`, {
      path: "/socket.io",
      transports: ["websocket"],
      auth: token ? { token } : {},
      reconnection: false,
      forceNew: true,
    });

  async function launch(agent = "demo-coder") {
    const res = await fetch(`${server.url}/api/v1/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${operator}`, "content-type": "application/json" },
      body: JSON.stringify({ goal: "tail me", agent }),
    });
    expect(res.status).toBe(201);
    return (await res.json()).id as string;
  }

  function tail(socket: Socket, runId: string, after: number) {
    const events: Ev[] = [];
    const deltas: string[] = [];
    socket.on("events", (m: { runId: string; events: Ev[] }) => m.runId === runId && events.push(...m.events));
    socket.on("delta", (m: { runId: string; delta: string }) => m.runId === runId && deltas.push(m.delta));
    const ack = new Promise<{ ok: boolean; cursor?: number; error?: string }>((resolve) =>
      socket.emit("subscribe", { runId, after }, resolve),
    );
    return { events, deltas, ack };
  }

  async function until(check: () => boolean, ms = 30_000) {
    const deadline = Date.now() + ms;
    while (!check()) {
      if (Date.now() > deadline) throw new Error("timed out");
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  const ended = (events: Ev[]) => events.some((e) => e.type === "run.state" && ["succeeded", "failed", "canceled"].includes(e.payload.to));

  it("refuses a socket without a session or token, and one with a forged token", async () => {
    for (const token of [undefined, "rein_forged"]) {
      const socket = connect(token);
      const err = await new Promise<Error>((resolve) => socket.on("connect_error", resolve));
      expect(err.message).toMatch(/UNAUTHORIZED/);
      socket.close();
    }
  });

  it("streams the snapshot and the live events in order, with text as it streams", async () => {
    const runId = await launch();
    const socket = connect(operator);
    const { events, deltas, ack } = tail(socket, runId, 0);
    expect((await ack).ok).toBe(true);
    await until(() => ended(events));
    socket.close();

    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.at(-1)!.payload.to).toBe("succeeded");
    const turns = events.filter((e) => e.type === "model.turn");
    expect(turns.length).toBeGreaterThan(3);
    // Every word of the streamed text arrived as a delta before its durable turn.
    expect(deltas.join("")).toContain(turns[1].payload.text);

    // A second viewer (a reload) gets the same log from the start...
    const again = connect(operator);
    const second = tail(again, runId, 0);
    expect((await second.ack).cursor).toBe(events.length);
    expect(second.events.map((e) => [e.seq, e.type])).toEqual(events.map((e) => [e.seq, e.type]));
    again.close();

    // ...and a reconnect from a cursor gets only what came after it.
    const resumed = connect(operator);
    const third = tail(resumed, runId, 10);
    await third.ack;
    expect(third.events[0].seq).toBe(11);
    expect(third.events).toHaveLength(events.length - 10);
    resumed.close();
  });

  it("does not show a run to someone outside its team", async () => {
    const runId = await launch();
    const socket = connect(outsider);
    const { ack, events } = tail(socket, runId, 0);
    expect(await ack).toEqual({ ok: false, code: "NOT_FOUND", error: `Run ${runId} was not found` });
    expect(events).toEqual([]);
    socket.close();
  });

  it("rejects a malformed subscription with a clear message", async () => {
    const socket = connect(operator);
    const reply = await new Promise((resolve) => socket.emit("subscribe", { after: -3 }, resolve));
    expect(reply).toEqual({ ok: false, code: "INVALID_INPUT", error: "subscribe needs {runId, after}" });
    socket.close();
  });
});
