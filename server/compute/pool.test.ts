// The warm pool with real pods: a pod prints its first prompt while it waits
// for a run; whoever watches the run's terminal later must still see it.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "@/test/helpers/wait";
import { spawn } from "node:child_process";
import { PodPool } from "./pool";
import { plainText } from "./markers";
import { probeSandbox } from "./sandbox";
import { DEFAULT_LIMITS } from "./types";

describe("PodPool", () => {
  let dataDir: string;
  let pool: PodPool;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-test-pool-"));
    // Sandboxed where bubblewrap works; the screen does not depend on it.
    pool = new PodPool({
      dataDir,
      size: 1,
      limits: { ...DEFAULT_LIMITS, wallTimeSec: 120 },
      sandbox: probeSandbox(),
      allowUnsandboxed: true,
    });
    await pool.start();
  });
  afterAll(async () => {
    await pool?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("a run's terminal shows the warm pod's first prompt, once, followed by what happens after", async () => {
    await waitFor(() => pool.stats().warm === 1, "a warm pod", { limitMs: 30_000 });
    // The warm pod has printed its prompt by now, long before anyone watches.
    await new Promise((r) => setTimeout(r, 200));
    const { pod, fromPool } = await pool.attach("run-1", path.join(dataDir, "workspaces", "run-1"));
    expect(fromPool).toBe(true);

    let late = "";
    pod.onData((chunk) => (late += chunk));
    let watched = "";
    pod.onData((chunk) => (watched += chunk), { replay: true });
    expect(late).toBe("");
    expect(plainText(watched)).toMatch(/^\S* \$ $/);
    // Nothing else came before the prompt (the echo of the line that started the shell is left out).
    expect(watched.startsWith("\u001b]6973;E;0\u0007")).toBe(true);

    const result = await pod.exec("echo hello-$((6*7))", { timeoutMs: 10_000 });
    expect(result).toMatchObject({ exitCode: 0, output: "hello-42\n" });
    await waitFor(() => /hello-42\r\n.*\$ $/s.test(watched), "the next prompt");
    const screen = plainText(watched);
    expect(screen).toMatch(/^\S* \$ echo hello-\$\(\(6\*7\)\)\nhello-42\n\S* \$ $/);
    // A second watcher subscribing now gets the same screen from the start.
    let second = "";
    pod.onData((chunk) => (second += chunk), { replay: true });
    expect(plainText(second)).toBe(screen);
    expect(plainText(late)).toBe(screen.slice(screen.indexOf("echo")));
  });
});

describe("pod folders of several processes sharing a data directory", () => {
  it("a starting pool keeps a live process's pods and removes a dead one's", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-test-pods-"));
    const live = spawn("sleep", ["60"]);
    const dead = spawn("true");
    await new Promise((r) => dead.once("exit", r));
    const folder = (name: string) => {
      const dir = path.join(dataDir, "pods", name, "rein-pod-secrets-x");
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, "TOKEN"), "sealed");
      return path.dirname(dir);
    };
    const liveDir = folder(`p${live.pid}`);
    const deadDir = folder(`p${dead.pid}`);
    const olderLayout = folder("warm-abc");
    const pool = new PodPool({ dataDir, size: 0, limits: DEFAULT_LIMITS, sandbox: probeSandbox(), allowUnsandboxed: true });
    try {
      await pool.start();
      expect(fs.existsSync(path.join(liveDir, "rein-pod-secrets-x", "TOKEN"))).toBe(true);
      expect(fs.existsSync(deadDir)).toBe(false);
      expect(fs.existsSync(olderLayout)).toBe(false);
      await pool.stop();
      // Stopping removes only its own folder.
      expect(fs.existsSync(liveDir)).toBe(true);
      expect(fs.readdirSync(path.join(dataDir, "pods"))).toEqual([`p${live.pid}`]);
    } finally {
      live.kill();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
