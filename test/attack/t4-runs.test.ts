// Attack: a hostile device's answers to a T4 run's file tools
// (docs/devices.md#a-run-on-a-device). The hub passes a `files` result on as
// the device sent it (any JSON within the 1 MiB frame); DeviceWorkspace must
// check it before Rein's tools trust it. The device here is a DeviceAccess that
// answers as a modified rein-device agent could: the hub adds nothing for
// `files` answers (schemas.ts: result is z.unknown()).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildDeviceAgent } from "@/packages/device/build";
import { DEFAULT_LIMITS } from "@/server/compute";
import { DevicePod, type DeviceAccess, type DeviceShell } from "@/server/devices";
import { DeviceWorkspace } from "@/server/tiers";
import { ToolError, Workspace } from "@/server/tools";

function hostile(answer: (op: string) => unknown): DeviceWorkspace {
  const hub: DeviceAccess = {
    isOnline: () => true,
    request: (async (_id: string, _op: string, p: { op: string }) => answer(p.op)) as DeviceAccess["request"],
    openShell: () => Promise.reject(new Error("no shell")),
    on: () => () => undefined,
  };
  return new DeviceWorkspace(new Workspace("/tmp/t4atk-none/ws"), hub, "dev-hostile");
}

const refused = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ToolError);
  expect((err as ToolError).code).toBe("DEVICE_FAILED");
};

describe("a hostile device's file answers", () => {
  it("a read whose data is an object with a huge length fills no buffer on the event loop (Buffer.from of an array-like)", async () => {
    // {length: 3e8} took 24 s of the event loop and 300 MB; larger, the server was killed for memory.
    const ws = hostile(() => ({ data: { length: 2_000_000 }, size: 1, mode: 0o644, mtimeMs: 0 }));
    await refused(ws.readFile("a.txt"));
    await refused(hostile(() => ({ data: { length: 2_000_000 }, totalLines: 1, size: 1 })).readLines("a.txt", { start: 1 }, 1000));
  });

  it("non-strings, negative sizes, data over the file limit are refused", async () => {
    await refused(hostile(() => ({ data: 42, size: 1, mode: 0, mtimeMs: 0 })).readFile("a"));
    await refused(hostile(() => ({ data: "QQ==", size: -5, mode: 0, mtimeMs: 0 })).readFile("a"));
    await refused(hostile(() => ({ data: "A".repeat(900_000), size: 1, mode: 0, mtimeMs: 0 })).readFile("a"));
    await refused(hostile(() => ({ kind: "file", size: "big", mode: 0, mtimeMs: 0 })).stat("a"));
    await refused(hostile(() => ({ created: "yes", hash: { toString: 1 }, bytes: 1 })).writeFile("a", "x"));
    await refused(hostile(() => ({ files: [1, 2, 3], truncated: false })).walk(".", 10));
    await refused(hostile(() => null).readFile("a"));
  });

  it("a tree larger than asked for, or of another shape, or nested past the stack, is refused", async () => {
    const many = Array.from({ length: 50 }, (_, i) => ({ type: "file", name: `f${i}`, path: `f${i}`, size: 1 }));
    await refused(hostile(() => ({ entries: many, count: 50, truncated: false })).tree(10));
    await refused(hostile(() => ({ entries: [{ type: "file", name: 7, path: "x", size: 1 }], count: 1, truncated: false })).tree(10));
    let deep: unknown = [];
    for (let i = 0; i < 20_000; i++) deep = [{ type: "dir", name: "d", path: "d", children: deep }];
    await refused(hostile(() => ({ entries: deep, count: 1, truncated: false })).tree(100_000));
  });

  it("honest answers still pass", async () => {
    const r = await hostile(() => ({ data: "aGk=", size: 2, mode: 0o644, mtimeMs: 1 })).readFile("a");
    expect(r.data.toString()).toBe("hi");
    const t = await hostile(() => ({
      entries: [{ type: "dir", name: "d", path: "d", children: [{ type: "file", name: "x", path: "d/x", size: 0, symlink: true }] }],
      count: 2,
      truncated: false,
    })).tree(10);
    expect(t.count).toBe(2);
    expect(await hostile(() => null).stat("a")).toBeNull();
  });
});

describe("a hostile device's terminal", () => {
  it("printing without end before its first prompt ends the terminal at once, nothing of it kept", async () => {
    // Before: every chunk kept (DevicePod's early output, then the pod's boot text) for the 30 s a terminal has to
    // start; at the 128 Ki characters a frame holds, 200 frames a second, that passes what a string may hold.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "t4atk-pod-"));
    let closed = 0;
    let timer: NodeJS.Timeout | undefined;
    const chunk = "x".repeat(128 * 1024);
    const hub: DeviceAccess = {
      isOnline: () => true,
      request: () => Promise.reject(new Error("no requests")),
      openShell: async (_id, _size, handlers) => {
        // Before it answers shell.open, and after: never a prompt.
        for (let i = 0; i < 16; i++) handlers.onData(chunk);
        timer = setInterval(() => {
          for (let i = 0; i < 8; i++) handlers.onData(chunk);
        }, 5);
        return {
          write: async () => undefined,
          resize: async () => undefined,
          close: async () => {
            closed++;
            clearInterval(timer);
          },
        } as unknown as DeviceShell;
      },
      on: () => () => undefined,
    };
    const started = Date.now();
    try {
      const err = await DevicePod.open({
        hub,
        deviceId: "dev-hostile",
        deviceName: "hostile",
        workspaceDir: dir,
        confined: false,
        limits: DEFAULT_LIMITS,
      }).then(
        () => null,
        (e: unknown) => e as { code?: string },
      );
      expect(err?.code).toBe("POD_START_FAILED");
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(closed).toBeGreaterThan(0);
    } finally {
      clearInterval(timer);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 40_000);
});

describe("the device's token and the shared folder", () => {
  it("a folder holding the agent's own settings (the home folder) is refused: the run's file tools would read the token there", async () => {
    // Before: `pair … --folder ~` only printed a note, and ~/.config/rein-device/config.json (the token) was inside
    // the folder the file service serves (and bound back over the confined terminal's hidden home).
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "t4atk-agent-"));
    try {
      const bundle = await buildDeviceAgent(path.join(dir, "rein-device.js"));
      const home = path.join(dir, "home");
      fs.mkdirSync(path.join(home, "work"), { recursive: true });
      const cli = (folder: string, xdg?: string) =>
        spawnSync(process.execPath, [bundle, "pair", "http://127.0.0.1:9", "ABCD-EFGH", "--folder", folder], {
          env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ...(xdg ? { XDG_CONFIG_HOME: xdg } : {}) } as Record<
            string,
            string
          > as NodeJS.ProcessEnv,
          encoding: "utf8",
          timeout: 20_000,
        });
      for (const [folder, xdg] of [
        [home, undefined],
        [path.join(home, "work"), path.join(home, "work", "conf")],
      ] as const) {
        const r = cli(folder, xdg);
        expect(r.status).not.toBe(0);
        expect(r.stdout + r.stderr).toMatch(/holds this agent's own settings and token/);
      }
      // A folder inside the home is fine: the pairing goes on (to a Rein that is not there).
      const ok = cli(path.join(home, "work"));
      expect(ok.stdout + ok.stderr).not.toMatch(/holds this agent's own settings/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
