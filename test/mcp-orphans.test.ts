// No MCP server outlives Rein (issue 18; the SDK's issue #2023): a stdio
// server is killed with the process that started it, even by SIGKILL, and a
// pid file lets the next start stop a group that somehow survived, without
// touching a process that merely got the same pid later.
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { killLeftoverServers, writePidFile } from "@/server/mcp-client";
import { createTestDb, type TestDb } from "./helpers/db";
import { fakeServerConfig } from "./helpers/fake-mcp";
import { freePort, spawnServer, type ServerProcess } from "./helpers/server-process";
import { waitFor } from "./helpers/wait";

/** Processes whose environment carries the marker. */
function withMarker(marker: string): number[] {
  return fs
    .readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .flatMap((d) => {
      try {
        return fs.readFileSync(`/proc/${d}/environ`, "latin1").includes(`fake_marker=${marker}`) ? [Number(d)] : [];
      } catch {
        return [];
      }
    });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return !fs.readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
  } catch {
    return false;
  }
};

describe("MCP server processes after Rein dies", () => {
  let t: TestDb;
  let server: ServerProcess | null = null;

  beforeEach(async () => {
    t = await createTestDb();
  });
  afterEach(async () => {
    await server?.kill();
    await t.cleanup();
  });

  it("SIGKILL of Rein takes its stdio servers with it", async () => {
    const marker = crypto.randomUUID();
    const stdio = fakeServerConfig("serve", { fake_marker: { value: marker } });
    await t.db.mcpServer.create({
      data: {
        name: "fake",
        transport: "stdio",
        config: JSON.stringify({ stdio: { ...stdio, network: false }, callTimeoutSec: 60 }),
        enabled: true,
      },
    });
    await t.db.$disconnect();
    const started = spawnServer({ REIN_DATA_DIR: t.dir, PORT: String(await freePort()) });
    server = started;
    await started.ready;
    await waitFor(async () => withMarker(marker).length > 0, "the MCP server to start");
    expect(fs.existsSync(path.join(t.dir, "mcp", "pids", "fake.pid"))).toBe(true);
    await started.kill("SIGKILL");
    server = null;
    await waitFor(async () => withMarker(marker).length === 0, "the MCP server to be gone");
  });

  it("the next start stops a group a pid file names, and leaves a reused pid alone", async () => {
    const dir = path.join(t.dir, "pids");
    const leftover = spawn("sleep", ["300"], { detached: true, stdio: "ignore" });
    const stranger = spawn("sleep", ["300"], { detached: true, stdio: "ignore" });
    try {
      writePidFile(path.join(dir, "left.pid"), leftover.pid!);
      // A pid file from long ago whose pid now belongs to another process: its start time differs.
      fs.writeFileSync(path.join(dir, "old.pid"), JSON.stringify({ pid: stranger.pid, start: "1" }));
      expect(killLeftoverServers(dir)).toBe(1);
      await waitFor(async () => !alive(leftover.pid!), "the leftover to be stopped");
      expect(alive(stranger.pid!)).toBe(true);
      expect(fs.readdirSync(dir)).toEqual([]);
    } finally {
      leftover.kill("SIGKILL");
      stranger.kill("SIGKILL");
    }
  });
});
