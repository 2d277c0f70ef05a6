// Hostile devices (docs/devices.md#what-rein-checks): every frame a device
// sends is untrusted. Each case fails without its check: the token in the
// hello, the frame limit, the frame rate, answers matched to requests asked
// on that very connection, strict frames (no claiming another device's id),
// the pairing endpoint's rate limit, its attempt count and its body checks,
// and the origin check of the socket's upgrade.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { createPairingCode, pairDevice, type DeviceError } from "@/server/devices";
import {
  DEVICE_CLOSE,
  DEVICE_MAX_FRAME_BYTES,
  DEVICE_PAIR_PATH,
  DEVICE_SOCKET_PATH,
  PAIRING_ALPHABET,
  type DeviceCapabilities,
} from "@/lib/device-protocol";
import { createTestKernel, type TestKernel } from "../helpers/kernel";
import { startDeviceServer, type DeviceServer } from "../helpers/device";
import { waitFor } from "../helpers/wait";

const CAPS: DeviceCapabilities = {
  os: "linux",
  arch: "x64",
  cpus: 2,
  memoryMb: 2048,
  hostname: "h",
  hardware: [],
  agentVersion: "0.1.0",
  commands: "none",
  confined: false,
};

let tk: TestKernel;
let server: DeviceServer;

interface TestSocket {
  ws: WebSocket;
  /** Frames the server sent, parsed. */
  frames: Array<{ t: string; id?: number; op?: string }>;
  closed: Promise<{ code: number; reason: string }>;
}

async function connect(headers: Record<string, string> = {}): Promise<TestSocket> {
  const ws = new WebSocket(`${server.url.replace("http", "ws")}${DEVICE_SOCKET_PATH}`, { headers, maxPayload: 4 * DEVICE_MAX_FRAME_BYTES });
  const frames: TestSocket["frames"] = [];
  ws.on("message", (d) => frames.push(JSON.parse(d.toString())));
  ws.on("error", () => {});
  const closed = new Promise<{ code: number; reason: string }>((r) =>
    ws.once("close", (code, reason) => r({ code, reason: reason.toString() })),
  );
  await new Promise((r) => ws.once("open", r));
  return { ws, frames, closed };
}

async function device(name: string) {
  const { code } = await createPairingCode(tk.t.db, { actor: tk.actors.operator, channel: "test" }, {});
  return pairDevice(tk.t.db, { code, name, capabilities: CAPS });
}

/** A device connected and welcomed. */
async function online(token: string): Promise<TestSocket> {
  const s = await connect();
  s.ws.send(JSON.stringify({ t: "hello", token, version: 1, capabilities: CAPS }));
  await waitFor(() => s.frames.some((f) => f.t === "welcome"), "the welcome");
  return s;
}

beforeAll(async () => {
  tk = await createTestKernel();
  server = await startDeviceServer(tk.t.db, { limits: { helloTimeoutMs: 300, framesPerSecond: 100, frameBurst: 200 } });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await tk?.cleanup();
});

describe("the device socket", () => {
  it("closes a hello with an unknown, malformed or revoked token, and a connection that never says hello, with 4401", async () => {
    const revoked = await device("revoked one");
    await tk.t.db.device.update({ where: { id: revoked.deviceId }, data: { revokedAt: new Date() } });
    for (const token of [`rdv_${"A".repeat(43)}`, "rdv_short", revoked.token]) {
      const s = await connect();
      s.ws.send(JSON.stringify({ t: "hello", token, version: 1, capabilities: CAPS }));
      expect((await s.closed).code, token).toBe(DEVICE_CLOSE.unauthorized);
      expect(s.frames).toEqual([]);
    }
    const silent = await connect();
    expect(await silent.closed).toMatchObject({ code: DEVICE_CLOSE.unauthorized, reason: expect.stringMatching(/No hello/) });
    expect(server.hub.isOnline(revoked.deviceId)).toBe(false);
  });

  it("closes a frame over 1 MiB, before the hello and after it", async () => {
    const before = await connect();
    before.ws.send("x".repeat(DEVICE_MAX_FRAME_BYTES + 1));
    expect((await before.closed).code).toBe(1009);
    const d = await device("big talker");
    const after = await online(d.token);
    after.ws.send(JSON.stringify({ t: "shell.data", session: "s", data: "x".repeat(DEVICE_MAX_FRAME_BYTES) }));
    expect((await after.closed).code).toBe(1009);
    await waitFor(() => !server.hub.isOnline(d.deviceId), "the device to be offline");
  });

  it("closes a flood of frames with 4429", async () => {
    const d = await device("flooder");
    const s = await online(d.token);
    for (let i = 0; i < 1_000; i++) s.ws.send('{"t":"pong"}');
    expect((await s.closed).code).toBe(DEVICE_CLOSE.flood);
    expect(server.hub.isOnline(d.deviceId)).toBe(false);
  });

  it("closes a binary frame, a frame that is not the protocol, capabilities out of bounds, and a protocol this Rein does not speak", async () => {
    const d = await device("odd one");
    const binary = await online(d.token);
    binary.ws.send(Buffer.from([1, 2, 3]));
    expect((await binary.closed).code).toBe(DEVICE_CLOSE.protocol);
    const odd = await online(d.token);
    odd.ws.send(JSON.stringify({ t: "shell.data", session: "../../etc", data: "x" }));
    expect((await odd.closed).code).toBe(DEVICE_CLOSE.protocol);
    const boastful = await connect();
    boastful.ws.send(
      JSON.stringify({ t: "hello", token: d.token, version: 1, capabilities: { ...CAPS, hardware: Array(1000).fill("gpu") } }),
    );
    expect((await boastful.closed).code).toBe(DEVICE_CLOSE.protocol);
    const future = await connect();
    future.ws.send(JSON.stringify({ t: "hello", token: d.token, version: 99, capabilities: CAPS }));
    expect(await future.closed).toEqual({ code: DEVICE_CLOSE.protocol, reason: expect.stringMatching(/newer than this Rein/) });
  });

  it("closes an answer to a request never asked; a late answer to one that timed out is only dropped", async () => {
    const d = await device("forger");
    const s = await online(d.token);
    const late = await server.hub.request(d.deviceId, "files", { op: "tree", params: {} }, { timeoutMs: 50 }).then(
      () => null,
      (e: DeviceError) => e,
    );
    expect(late?.code).toBe("TIMEOUT");
    const asked = s.frames.find((f) => f.t === "req")!;
    s.ws.send(JSON.stringify({ t: "res", id: asked.id, ok: true, result: {} }));
    // Still connected: a real request is answered.
    const answered = server.hub.request(d.deviceId, "files", { op: "tree", params: {} }, { timeoutMs: 5_000 });
    await waitFor(() => s.frames.filter((f) => f.t === "req").length === 2, "the second request");
    s.ws.send(JSON.stringify({ t: "res", id: s.frames.filter((f) => f.t === "req")[1].id, ok: true, result: { entries: [] } }));
    expect(await answered).toEqual({ entries: [] });

    s.ws.send(JSON.stringify({ t: "res", id: 9_999, ok: true, result: { granted: true, by: "owner" } }));
    expect(await s.closed).toMatchObject({ code: DEVICE_CLOSE.protocol, reason: expect.stringMatching(/never asked/) });
  });

  it("does not let a device claim another device's id, or answer the other's requests", async () => {
    const a = await device("device a");
    const b = await device("device b");
    const realB = await online(b.token);
    // A hello with A's token that names B is not the protocol.
    const claiming = await connect();
    claiming.ws.send(JSON.stringify({ t: "hello", token: a.token, version: 1, capabilities: CAPS, deviceId: b.deviceId }));
    expect((await claiming.closed).code).toBe(DEVICE_CLOSE.protocol);
    // A connected A says hello again as B: refused, and B's own connection is untouched.
    const realA = await online(a.token);
    realA.ws.send(JSON.stringify({ t: "hello", token: b.token, version: 1, capabilities: CAPS }));
    expect((await realA.closed).code).toBe(DEVICE_CLOSE.protocol);
    expect(server.hub.isOnline(b.deviceId)).toBe(true);
    // A request to B: A (connected again) answers its id first, and is closed; B's own answer is the one taken.
    const otherA = await online(a.token);
    const toB = server.hub.request(b.deviceId, "consent", {
      runId: "r",
      agent: "x",
      goal: "g",
      team: { id: "t", name: "t" },
      requester: "p",
    });
    await waitFor(() => realB.frames.some((f) => f.t === "req"), "B's request");
    const id = realB.frames.find((f) => f.t === "req")!.id;
    otherA.ws.send(JSON.stringify({ t: "res", id, ok: true, result: { granted: true, by: "auto" } }));
    expect((await otherA.closed).code).toBe(DEVICE_CLOSE.protocol);
    realB.ws.send(JSON.stringify({ t: "res", id, ok: true, result: { granted: false, by: "owner" } }));
    expect(await toB).toEqual({ granted: false, by: "owner" });
    realB.ws.close();
  });

  it("refuses an upgrade from a page of another site", async () => {
    const ws = new WebSocket(`${server.url.replace("http", "ws")}${DEVICE_SOCKET_PATH}`, { headers: { origin: "https://evil.example" } });
    const status = await new Promise<number>((resolve) => {
      ws.once("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
      ws.once("open", () => resolve(101));
      ws.once("error", () => {});
    });
    expect(status).toBe(403);
  });
});

describe("pairing", () => {
  const post = (base: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}${DEVICE_PAIR_PATH}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });

  it("limits attempts per client address", async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => post(server.url, { code: "AAAA-AAAA", name: "guess", capabilities: CAPS }).then((r) => r.status)),
    );
    expect(answers.filter((s) => s === 429).length).toBeGreaterThanOrEqual(9);
  });

  it("a brute force against one code kills it after 5 wrong guesses, even without the rate limit", async () => {
    const open = await startDeviceServer(tk.t.db, { pairsPerSecond: 1_000 });
    try {
      const { code } = await createPairingCode(tk.t.db, { actor: tk.actors.viewer, channel: "test" }, {});
      const statuses: number[] = [];
      for (let i = 0; i < 40; i++) {
        const guess = `${code.slice(0, 5)}${PAIRING_ALPHABET[i % 32].repeat(4)}`;
        if (guess === code) continue;
        statuses.push((await post(open.url, { code: guess, name: "brute", capabilities: CAPS })).status);
      }
      expect(statuses.every((s) => s === 401)).toBe(true);
      const right = await post(open.url, { code, name: "brute", capabilities: CAPS });
      expect(right.status).toBe(401);
      const row = await tk.t.db.devicePairing.findFirstOrThrow({
        where: { lookup: code.slice(0, 4) },
        select: { attempts: true, usedAt: true },
      });
      expect(row).toEqual({ attempts: 5, usedAt: null });
      expect(await tk.t.db.device.count({ where: { name: "brute" } })).toBe(0);
    } finally {
      await open.close();
    }
  });

  it("refuses a body that is too large, not JSON, or has fields it should not", async () => {
    const open = await startDeviceServer(tk.t.db, { pairsPerSecond: 1_000 });
    try {
      expect((await post(open.url, { code: "AAAA-AAAA", name: "x".repeat(20_000), capabilities: CAPS })).status).toBe(413);
      expect((await post(open.url, "{not json")).status).toBe(400);
      expect((await post(open.url, { code: "AAAA-AAAA", name: "x", capabilities: CAPS, ownerId: tk.users.admin })).status).toBe(400);
      expect((await post(open.url, { code: "AAAA-AAAA", name: "x", capabilities: CAPS }, { "content-type": "text/plain" })).status).toBe(
        415,
      );
    } finally {
      await open.close();
    }
  });
});
