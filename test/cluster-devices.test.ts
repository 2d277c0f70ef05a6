// People's devices with several machines (docs/devices.md#with-several-machines),
// on PostgreSQL and Redis: the real device agent, in a network namespace of its
// own, connects to a "web" side (a real DeviceHub and the DeviceHost serving
// it); a "worker" side reaches it only through RelayedDevices over Redis. The
// worker sees it online, reads a file in the owner's folder and is refused one
// outside, opens a terminal whose output streams back; the device killed, the
// worker sees it offline and its terminal ends; started again, online. The web
// process going away fails what waits with DEVICE_DISCONNECTED; a web process
// gone silent is dropped; what is not the relay's messages is ignored.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DeviceHost,
  MAX_RELAY_MESSAGE,
  RelayedDevices,
  connectRedis,
  deviceChannels,
  type DeviceChannels,
  type Redis,
} from "@/server/cluster";
import { DeviceError } from "@/server/devices";
import { createTestKernel, type TestKernel } from "./helpers/kernel";
import { callerFor } from "./helpers/services";
import { startDeviceServer, type DeviceServer } from "./helpers/device";
import { deviceAgentRunner, makeDeviceNetns, type AgentProcess, type DeviceAgentRunner, type DeviceNetns } from "./helpers/device-agent";
import { waitFor } from "./helpers/wait";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const logged: string[] = [];
const log = { info: (m: string) => void logged.push(m), error: (m: string) => void logged.push(m) };

let tk: TestKernel;
let ns: DeviceNetns;
let server: DeviceServer;
let agent: DeviceAgentRunner;
let running: AgentProcess;
let deviceId: string;
let folder: string;
let channels: DeviceChannels;
let webRedis: Redis;
let workerRedis: Redis;
let host: DeviceHost;
let worker: RelayedDevices;

const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e as DeviceError,
  );
/** A request published to the web side as another worker would, and its answer. */
async function askAs(from: string, req: { deviceId: string; op: string; params: unknown }) {
  const sub = workerRedis.duplicate();
  await sub.subscribe(channels.answers(from));
  const answer = new Promise<unknown>((resolve) => sub.on("message", (_c, raw) => resolve(JSON.parse(raw))));
  await workerRedis.publish(channels.requests("web-1"), JSON.stringify({ kind: "req", from, id: 1, timeoutMs: 5_000, ...req }));
  const got = await answer;
  await sub.quit();
  return got;
}

const nextEvent = (event: "online" | "offline") =>
  new Promise<string>((resolve) => {
    const off = worker.on(event, (d) => {
      if (d.id !== deviceId) return;
      off();
      resolve(d.id);
    });
  });

beforeAll(async () => {
  tk = await createTestKernel({ database: "postgres" });
  ns = makeDeviceNetns();
  server = await startDeviceServer(tk.t.db, { host: ns.hostAddress });
  agent = await deviceAgentRunner(ns.netns);
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "rein-cluster-devices-"));
  folder = path.join(base, "work");
  fs.mkdirSync(path.join(folder, "notes"), { recursive: true });
  fs.mkdirSync(path.join(base, "outside"));
  fs.writeFileSync(path.join(folder, "notes", "todo.txt"), "buy milk\n");
  fs.writeFileSync(path.join(base, "outside", "secret.txt"), "not for Rein\n");
  const { code } = await callerFor(tk, tk.actors.operator).devices.createPairing({});
  const paired = await agent.cli(["pair", server.url, code, "--folder", folder, "--name", "relayed laptop", "--commands", "any"]);
  expect(paired.code, paired.output).toBe(0);
  deviceId = JSON.parse(fs.readFileSync(path.join(agent.home, ".config", "rein-device", "config.json"), "utf8")).deviceId;
  running = agent.start();
  await waitFor(() => server.hub.isOnline(deviceId), "the device to be online on the web side", { limitMs: 15_000 });

  // The web side announces what its hub holds; the worker, started after, reads it from Redis.
  channels = deviceChannels(`rein-test-devices-${crypto.randomBytes(4).toString("hex")}`);
  webRedis = connectRedis(REDIS_URL, { name: "test-web" });
  workerRedis = connectRedis(REDIS_URL, { name: "test-worker" });
  host = new DeviceHost({ hub: server.hub, redis: webRedis, channels, host: "web-1", log });
  await host.start();
  worker = new RelayedDevices({ redis: workerRedis, channels, worker: "worker-1", log });
  await worker.start();
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await host?.stop();
  await running?.kill();
  agent?.cleanup();
  await server?.close();
  ns?.cleanup();
  webRedis?.disconnect();
  workerRedis?.disconnect();
  await tk?.cleanup();
});

describe("a device connected to a web process, reached from a worker", () => {
  it("is online for the worker, which reads inside the owner's folder and is refused outside it", async () => {
    expect(worker.isOnline(deviceId)).toBe(true);
    const read = (await worker.request(deviceId, "files", { op: "read", params: { path: "notes/todo.txt" } })) as { data: string };
    expect(Buffer.from(read.data, "base64").toString()).toBe("buy milk\n");
    const err = await errorOf(worker.request(deviceId, "files", { op: "read", params: { path: "../outside/secret.txt" } }));
    expect(err).toBeInstanceOf(DeviceError);
    expect(err).toMatchObject({ code: "DEVICE_REFUSED", reason: "OUTSIDE_WORKSPACE" });
    // Nothing of the device's token crossed Redis: the worker's side has only ids and names.
    expect(await webRedis.hgetall(channels.hosted("web-1"))).toEqual({ [deviceId]: "relayed laptop" });
  });

  it("opens a terminal from the worker, its output streamed back and its keystrokes and size relayed", async () => {
    let output = "";
    const shell = await worker.openShell(deviceId, { cols: 100, rows: 30 }, { onData: (d) => void (output += d), onExit: () => {} });
    await shell.write("echo hi-$((40+2)) in=$(pwd)\n");
    await waitFor(() => output.includes("hi-42"), "the shell's output", { limitMs: 10_000 });
    expect(output).toContain(`in=${folder}`);
    expect(await shell.resize(120, 40)).toEqual({ applied: true });
    await shell.write("stty size\n");
    await waitFor(() => /\b40 120\b/.test(output), "the new size", { limitMs: 10_000 });
    // Another worker naming that terminal reaches nothing: a terminal is its opener's.
    expect(
      await askAs("worker-2", { deviceId, op: "shell.write", params: { session: shell.session, data: "echo stolen\n" } }),
    ).toMatchObject({
      ok: false,
      error: { code: "DEVICE_DISCONNECTED" },
    });
    await shell.close();
    expect(output).not.toContain("stolen");
  });

  it("goes offline for the worker when the device is killed, its terminal ending; online again when it starts", async () => {
    let exit: number | null | undefined;
    await worker.openShell(deviceId, { cols: 80, rows: 24 }, { onData: () => {}, onExit: (c) => void (exit = c) });
    const offline = nextEvent("offline");
    await running.kill();
    expect(await offline).toBe(deviceId);
    await waitFor(() => exit !== undefined, "the worker's terminal to end");
    expect(exit).toBeNull();
    expect(worker.isOnline(deviceId)).toBe(false);
    expect(await errorOf(worker.request(deviceId, "files", { op: "tree", params: {} }))).toMatchObject({
      code: "DEVICE_OFFLINE",
      message: expect.stringMatching(/relayed laptop is not connected/),
    });

    const online = nextEvent("online");
    running = agent.start();
    expect(await online).toBe(deviceId);
    const tree = (await worker.request(deviceId, "files", { op: "tree", params: {} })) as { entries: Array<{ name: string }> };
    expect(tree.entries.map((e) => e.name)).toContain("notes");
  }, 30_000);

  it("fails what waits with DEVICE_DISCONNECTED when the web process goes away, and reaches the device again through the next", async () => {
    let exit: number | null | undefined;
    await worker.openShell(deviceId, { cols: 80, rows: 24 }, { onData: () => {}, onExit: (c) => void (exit = c) });
    const team = { id: tk.actors.operator.teamIds[0], name: "default" };
    // The owner has not answered yet: the question waits in the agent's terminal.
    const asked = errorOf(worker.request(deviceId, "consent", { runId: "r1", agent: "coder", goal: "tidy", team, requester: "op" }));
    await waitFor(() => running.output().includes("Allow it? [y/N]"), "the consent question");
    const offline = nextEvent("offline");
    await host.stop();
    expect(await asked).toMatchObject({ code: "DEVICE_DISCONNECTED" });
    expect(await offline).toBe(deviceId);
    expect(exit).toBeNull();
    expect(await webRedis.exists(channels.hosted("web-1"))).toBe(0);

    const online = nextEvent("online");
    host = new DeviceHost({ hub: server.hub, redis: webRedis, channels, host: "web-2", log });
    await host.start();
    expect(await online).toBe(deviceId);
    expect(worker.isOnline(deviceId)).toBe(true);
  }, 20_000);
});

describe("the relay's own bounds", () => {
  it("drops a web process that went silent: its requests fail and its devices go offline", async () => {
    const quick = new RelayedDevices({ redis: workerRedis, channels, worker: "worker-3", log, limits: { silentMs: 2_500 } });
    await quick.start();
    // A web process that announces one device, takes requests and never answers, then falls silent.
    const ghost = workerRedis.duplicate();
    await ghost.subscribe(channels.requests("ghost"));
    await webRedis.publish(channels.events, JSON.stringify({ kind: "online", host: "ghost", id: "dev-ghost", name: "ghost laptop" }));
    await waitFor(() => quick.isOnline("dev-ghost"), "the ghost's device to be online");
    const offline = new Promise<string>((resolve) => quick.on("offline", (d) => d.id === "dev-ghost" && resolve(d.id)));
    const err = await errorOf(quick.request("dev-ghost", "files", { op: "tree", params: {} }));
    expect(err).toMatchObject({ code: "DEVICE_DISCONNECTED" });
    expect(await offline).toBe("dev-ghost");
    // The real device, through a web process that beats, stays online.
    expect(quick.isOnline(deviceId)).toBe(true);
    await ghost.quit();
    await quick.stop();
  });

  it("ignores what is not the relay's: an oversized, malformed or forged message changes nothing", async () => {
    const answers = channels.answers("worker-1");
    await webRedis.publish(answers, "x".repeat(MAX_RELAY_MESSAGE + 1));
    await webRedis.publish(answers, "{not json");
    await webRedis.publish(answers, JSON.stringify({ kind: "res", id: 999_999, ok: true, result: "forged" }));
    await webRedis.publish(answers, JSON.stringify({ kind: "exit", shell: "no-such-shell", code: 0 }));
    await webRedis.publish(channels.events, JSON.stringify({ kind: "offline", host: "web-9", id: deviceId, name: "x" }));
    await webRedis.publish(channels.events, JSON.stringify({ kind: "online", host: ["not", "an", "id"], id: "dev-x", name: "x" }));
    const big = "a".repeat(MAX_RELAY_MESSAGE);
    expect(await errorOf(worker.request(deviceId, "files", { op: "write", params: { path: "big.txt", data: big } }))).toMatchObject({
      code: "DEVICE_FAILED",
      message: expect.stringMatching(/larger than a device takes/),
    });
    expect(worker.isOnline(deviceId)).toBe(true);
    expect(worker.isOnline("dev-x")).toBe(false);
    const read = (await worker.request(deviceId, "files", { op: "read", params: { path: "notes/todo.txt" } })) as { data: string };
    expect(Buffer.from(read.data, "base64").toString()).toBe("buy milk\n");
  });
});
