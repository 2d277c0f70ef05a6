// T4 devices (docs/devices.md): pairing codes (shown once, single use, 10
// minutes, dead after 5 wrong guesses, at most 5 open), who sees and revokes
// which device; then the real device agent, built from packages/device and
// run in a network namespace of its own, paired over HTTP with its own
// `pair` command, serving files, consent and a terminal to Rein's DeviceHub,
// going offline when killed and online again when started, and surviving
// Rein going away and coming back.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { DeviceError, MAX_OPEN_PAIRINGS, PAIRING_TTL_MS, createPairingCode, pairDevice, type DeviceShell } from "@/server/devices";
import { DomainError } from "@/server/errors";
import { DEVICE_CLOSE, DEVICE_SOCKET_PATH, PAIRING_ALPHABET, type DeviceCapabilities } from "@/lib/device-protocol";
import { AGENT_VERSION } from "@/packages/device/src/version";
import { createTestKernel, type TestKernel } from "./helpers/kernel";
import { callerFor } from "./helpers/services";
import { startDeviceServer, type DeviceServer } from "./helpers/device";
import { deviceAgentRunner, makeDeviceNetns, type AgentProcess, type DeviceAgentRunner, type DeviceNetns } from "./helpers/device-agent";
import { waitFor } from "./helpers/wait";

const CAPS: DeviceCapabilities = {
  os: "linux",
  arch: "x64",
  cpus: 2,
  memoryMb: 2048,
  hostname: "test-laptop",
  hardware: [],
  agentVersion: "0.1.0",
  commands: "none",
  confined: false,
};

let tk: TestKernel;
const by = (role: "viewer" | "operator" | "admin") => ({ actor: tk.actors[role], channel: "test" });

async function refusal(p: Promise<unknown>): Promise<DomainError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  return err as DomainError;
}

beforeAll(async () => {
  tk = await createTestKernel();
}, 60_000);

afterAll(async () => {
  await tk?.cleanup();
});

describe("pairing", () => {
  it("a code is 8 unambiguous characters, trades for a token once, and is stored only as a hash", async () => {
    const { code, expiresAt } = await callerFor(tk, tk.actors.viewer).devices.createPairing({});
    expect(code).toMatch(new RegExp(`^[${PAIRING_ALPHABET}]{4}-[${PAIRING_ALPHABET}]{4}$`));
    expect(expiresAt.getTime() - Date.now()).toBeGreaterThan(PAIRING_TTL_MS - 60_000);
    const rows = await tk.t.db.devicePairing.findMany({ select: { codeHash: true, lookup: true } });
    expect(JSON.stringify(rows)).not.toContain(code.slice(5));

    const paired = await pairDevice(tk.t.db, { code: code.toLowerCase().replace("-", " "), name: "laptop", capabilities: CAPS });
    expect(paired.token).toMatch(/^rdv_[A-Za-z0-9_-]{43}$/);
    const device = await tk.t.db.device.findUniqueOrThrow({ where: { id: paired.deviceId } });
    expect(device.ownerId).toBe(tk.users.viewer);
    expect(device.tokenHash).not.toContain(paired.token.slice(4));

    const again = await refusal(pairDevice(tk.t.db, { code, name: "second", capabilities: CAPS }));
    expect(again.code).toBe("UNAUTHORIZED");
    expect(again.message).toMatch(/expired or was used/);
  });

  it("an expired code is refused", async () => {
    const { code } = await createPairingCode(tk.t.db, by("viewer"), {}, new Date(Date.now() - PAIRING_TTL_MS - 1_000));
    expect((await refusal(pairDevice(tk.t.db, { code, name: "late", capabilities: CAPS }))).message).toMatch(/expired/);
  });

  it("a code dies after 5 wrong guesses against it, the right one included after that", async () => {
    const { code } = await createPairingCode(tk.t.db, by("viewer"), {});
    const wrong = (i: number) =>
      `${code.slice(0, 5)}${[...code.slice(5)].map((c, j) => PAIRING_ALPHABET[(PAIRING_ALPHABET.indexOf(c) + i + j + 1) % 32]).join("")}`;
    for (let i = 0; i < 5; i++) {
      const err = await refusal(pairDevice(tk.t.db, { code: wrong(i), name: "guess", capabilities: CAPS }));
      expect(err.message).toMatch(i < 4 ? /Wrong pairing code: check it/ : /too many times/);
    }
    expect((await refusal(pairDevice(tk.t.db, { code, name: "right-but-late", capabilities: CAPS }))).code).toBe("UNAUTHORIZED");
    expect(await tk.t.db.device.count({ where: { name: "right-but-late" } })).toBe(0);
  });

  it(`at most ${MAX_OPEN_PAIRINGS} codes are open per person`, async () => {
    const caller = callerFor(tk, tk.actors.approver);
    for (let i = 0; i < MAX_OPEN_PAIRINGS; i++) await caller.devices.createPairing({});
    await expect(caller.devices.createPairing({})).rejects.toMatchObject({ cause: { code: "RATE_LIMITED" } });
  });

  it("people see and revoke their own devices, admins everyone's; auto-consent is the owner's alone", async () => {
    const { code } = await createPairingCode(tk.t.db, by("operator"), {});
    const mine = await pairDevice(tk.t.db, { code, name: "operator-desktop", capabilities: CAPS });
    const viewer = callerFor(tk, tk.actors.viewer);
    const operator = callerFor(tk, tk.actors.operator);
    const admin = callerFor(tk, tk.actors.admin);
    expect((await viewer.devices.list({})).map((d) => d.id)).not.toContain(mine.deviceId);
    expect((await operator.devices.list({})).map((d) => d.id)).toContain(mine.deviceId);
    expect((await admin.devices.list({})).map((d) => d.id)).toContain(mine.deviceId);
    await expect(viewer.devices.revoke({ id: mine.deviceId })).rejects.toMatchObject({ cause: { code: "NOT_FOUND" } });
    const teamId = tk.actors.operator.teamIds[0];
    await expect(admin.devices.setAutoConsent({ id: mine.deviceId, teamIds: [teamId] })).rejects.toMatchObject({
      cause: { code: "FORBIDDEN" },
    });
    const set = await operator.devices.setAutoConsent({ id: mine.deviceId, teamIds: [teamId] });
    expect(set.autoConsentTeamIds).toEqual([teamId]);
    const revoked = await admin.devices.revoke({ id: mine.deviceId });
    expect(revoked.state).toBe("revoked");
    expect((await operator.devices.list({})).map((d) => d.id)).not.toContain(mine.deviceId);
    const audit = await tk.t.db.auditEntry.findMany({ where: { kind: { startsWith: "device." } }, select: { kind: true } });
    expect(audit.map((a) => a.kind)).toEqual(
      expect.arrayContaining(["device.pairing_created", "device.paired", "device.auto_consent", "device.revoked"]),
    );
  });

  it("a revoked device's token is refused at the socket", async () => {
    const server = await startDeviceServer(tk.t.db);
    try {
      const { code } = await createPairingCode(tk.t.db, by("viewer"), {});
      const paired = await pairDevice(tk.t.db, { code, name: "to-revoke", capabilities: CAPS });
      await callerFor(tk, tk.actors.viewer).devices.revoke({ id: paired.deviceId });
      const ws = new WebSocket(`${server.url.replace("http", "ws")}${DEVICE_SOCKET_PATH}`);
      await new Promise((r) => ws.once("open", r));
      ws.send(JSON.stringify({ t: "hello", token: paired.token, version: 1, capabilities: CAPS }));
      const [closeCode, reason] = await new Promise<[number, string]>((r) => ws.once("close", (c, why) => r([c, why.toString()])));
      expect(closeCode).toBe(DEVICE_CLOSE.unauthorized);
      expect(reason).toMatch(/revoked/);
    } finally {
      await server.close();
    }
  });
});

describe("the device agent in a network namespace of its own", () => {
  let ns: DeviceNetns;
  let server: DeviceServer;
  let agent: DeviceAgentRunner;
  let running: AgentProcess;
  let deviceId: string;
  let folder: string;
  let outside: string;

  const hub = () => server.hub;
  const online = () => waitFor(() => hub().isOnline(deviceId), "the device to be online", { limitMs: 15_000 });

  beforeAll(async () => {
    ns = makeDeviceNetns();
    server = await startDeviceServer(tk.t.db, { host: ns.hostAddress });
    agent = await deviceAgentRunner(ns.netns);
    const base = fs.mkdtempSync(path.join(os.tmpdir(), "rein-device-files-"));
    folder = path.join(base, "work");
    outside = path.join(base, "outside");
    fs.mkdirSync(path.join(folder, "notes"), { recursive: true });
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(folder, "notes", "todo.txt"), "buy milk\n");
    fs.writeFileSync(path.join(outside, "secret.txt"), "not for Rein\n");
    fs.symlinkSync(path.join(outside, "secret.txt"), path.join(folder, "secret-link.txt"));
    fs.symlinkSync(outside, path.join(folder, "outside-dir"));

    const { code } = await callerFor(tk, tk.actors.operator).devices.createPairing({});
    const paired = await agent.cli([
      "pair",
      server.url,
      code,
      "--folder",
      folder,
      "--name",
      "test laptop",
      "--commands",
      "any",
      "--expose",
      "usb",
    ]);
    expect(paired.output).toMatch(/Paired: this computer is the device test laptop/);
    expect(paired.code).toBe(0);
    const config = JSON.parse(fs.readFileSync(path.join(agent.home, ".config", "rein-device", "config.json"), "utf8"));
    expect(fs.statSync(path.join(agent.home, ".config", "rein-device", "config.json")).mode & 0o777).toBe(0o600);
    deviceId = config.deviceId;
    running = agent.start({ AGENT_SECRET: "must-not-reach-the-shell" });
    await online();
  }, 60_000);

  afterAll(async () => {
    await running?.kill();
    agent?.cleanup();
    await server?.close();
    ns?.cleanup();
  });

  it("says hello with its capabilities and is listed online", async () => {
    const [device] = (await callerFor(tk, tk.actors.operator).devices.list({})).filter((d) => d.id === deviceId);
    expect(device.state).toBe("online");
    expect(device.capabilities).toMatchObject({ os: "linux", commands: "any", hardware: ["usb"], agentVersion: AGENT_VERSION });
    expect(device.lastSeenAt).not.toBeNull();
    expect(JSON.parse(fs.readFileSync(path.resolve("packages/device/package.json"), "utf8")).version).toBe(AGENT_VERSION);
    await waitFor(() => running.output().includes("Connected: Rein knows this device as test laptop"), "the welcome");
  });

  it("lists, reads and writes files inside the owner's folder", async () => {
    const tree = (await hub().request(deviceId, "files", { op: "tree", params: {} })) as { entries: Array<{ name: string }> };
    expect(tree.entries.map((e) => e.name)).toEqual(expect.arrayContaining(["notes", "secret-link.txt"]));
    const read = (await hub().request(deviceId, "files", { op: "read", params: { path: "notes/todo.txt" } })) as { data: string };
    expect(Buffer.from(read.data, "base64").toString()).toBe("buy milk\n");
    await hub().request(deviceId, "files", {
      op: "write",
      params: { path: "out/report.md", data: Buffer.from("# done\n").toString("base64") },
    });
    expect(fs.readFileSync(path.join(folder, "out", "report.md"), "utf8")).toBe("# done\n");
    expect(running.output()).toMatch(/Files: write out\/report.md/);
  });

  it("refuses a path outside the folder, and a symlink in it that points outside", async () => {
    const attempts = [
      { op: "read", params: { path: "../outside/secret.txt" } },
      { op: "read", params: { path: "/etc/hostname" } },
      { op: "read", params: { path: "secret-link.txt" } },
      { op: "read", params: { path: "outside-dir/secret.txt" } },
      { op: "write", params: { path: "outside-dir/planted.txt", data: "eA==" } },
      { op: "remove", params: { path: "outside-dir/secret.txt" } },
      { op: "stat", params: { path: "outside-dir/secret.txt", follow: false } },
      { op: "lstatMany", params: { paths: ["outside-dir/secret.txt"] } },
    ] as const;
    for (const a of attempts) {
      const err = await hub()
        .request(deviceId, "files", a as never)
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(err, JSON.stringify(a)).toBeInstanceOf(DeviceError);
      expect((err as DeviceError).code).toBe("DEVICE_REFUSED");
      expect((err as DeviceError).reason, JSON.stringify(a)).toMatch(/^(OUTSIDE_WORKSPACE|UNKNOWN_OP)$/);
    }
    expect(fs.readFileSync(path.join(outside, "secret.txt"), "utf8")).toBe("not for Rein\n");
    expect(fs.existsSync(path.join(outside, "planted.txt"))).toBe(false);
  });

  it("asks its owner for consent in its terminal, unless the owner chose auto-consent for the team", async () => {
    const team = { id: tk.actors.operator.teamIds[0], name: "default" };
    const ask = { runId: "run-1", agent: "coder", goal: "tidy the notes", team, requester: "operator@test.local" };
    const asked = hub().request(deviceId, "consent", ask, { timeoutMs: 20_000 });
    await waitFor(() => running.output().includes("Allow it? [y/N]"), "the consent question");
    running.answer("y");
    expect(await asked).toEqual({ granted: true, by: "owner" });

    const refused = hub().request(deviceId, "consent", { ...ask, runId: "run-2" }, { timeoutMs: 20_000 });
    await waitFor(() => running.output().split("Allow it? [y/N]").length === 3, "the second question");
    running.answer("n");
    expect(await refused).toEqual({ granted: false, by: "owner" });

    await callerFor(tk, tk.actors.operator).devices.setAutoConsent({ id: deviceId, teamIds: [team.id] });
    await waitFor(() => running.output().includes("Auto-consent now covers 1 team"), "the new settings to reach the device");
    expect(await hub().request(deviceId, "consent", { ...ask, runId: "run-3" })).toEqual({ granted: true, by: "auto" });
  });

  it("opens a terminal in the folder with a clean environment, and streams its output", async () => {
    let output = "";
    let exitCode: number | null | undefined;
    const shell: DeviceShell = await hub().openShell(
      deviceId,
      { cols: 100, rows: 30 },
      { onData: (d) => void (output += d), onExit: (c) => void (exitCode = c) },
    );
    await shell.write("echo hi-$((40+2)) secret=[$AGENT_SECRET] in=$(pwd)\n");
    await waitFor(() => output.includes("hi-42"), "the shell's output", { limitMs: 10_000 });
    expect(output).toContain(`secret=[] in=${folder}`);
    if (fs.existsSync("/usr/bin/bwrap")) {
      // Confined: the system is read-only and the home folder, with the agent's token, is hidden.
      await shell.write("touch /usr/rein-was-here; cat $HOME/.config/rein-device/config.json; echo confined-$((1+1))-done\n");
      await waitFor(() => output.includes("confined-2-done"), "the confinement checks", { limitMs: 10_000 });
      expect(output).toMatch(/Read-only file system/);
      expect(output).toMatch(/No such file or directory/);
      expect(output).not.toMatch(/rdv_/);
      expect(fs.existsSync("/usr/rein-was-here")).toBe(false);
    }
    await shell.write("stty size\n");
    await waitFor(() => /\b30 100\b/.test(output), "the terminal's size", { limitMs: 10_000 });
    expect(await shell.resize(120, 40)).toEqual({ applied: true });
    await shell.write("stty size; exit 3\n");
    await waitFor(() => exitCode !== undefined, "the shell to exit", { limitMs: 10_000 });
    expect(output).toMatch(/\b40 120\b/);
    expect(exitCode).toBe(3);
  });

  it("goes offline when the agent is killed, online again when it starts, and comes back after Rein went away", async () => {
    const offline = new Promise<string>((resolve) => {
      const stop = hub().on("offline", (d) => {
        stop();
        resolve(d.id);
      });
    });
    await running.kill();
    expect(await offline).toBe(deviceId);
    expect(hub().isOnline(deviceId)).toBe(false);
    await expect(hub().request(deviceId, "files", { op: "tree", params: {} })).rejects.toMatchObject({ code: "DEVICE_OFFLINE" });

    running = agent.start();
    await online();

    // Rein stops and starts again on the same address: the agent reconnects by itself.
    const port = server.port;
    await server.close();
    server = await startDeviceServer(tk.t.db, { host: ns.hostAddress, port });
    await waitFor(() => server.hub.isOnline(deviceId), "the agent to reconnect to the new Rein", { limitMs: 20_000 });
    expect(running.output()).toMatch(/trying again in/);
    const read = (await hub().request(deviceId, "files", { op: "read", params: { path: "notes/todo.txt" } })) as { data: string };
    expect(Buffer.from(read.data, "base64").toString()).toBe("buy milk\n");
  }, 40_000);

  it("stops for good, in words, once the device is revoked", async () => {
    await callerFor(tk, tk.actors.operator).devices.revoke({ id: deviceId });
    expect(await running.exited).toBe(2);
    expect(running.output()).toMatch(/Rein refused this device: This device was revoked/);
    expect(hub().isOnline(deviceId)).toBe(false);
  });
});
