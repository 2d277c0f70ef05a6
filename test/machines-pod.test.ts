// A run's terminal on a remote machine (docs/desktops-and-tiers.md#a-runs-terminal-on-a-machine)
// against a real OpenSSH server in a network namespace (test/helpers/sshd.ts):
// the terminal pod's exec (output, exit code, multi-line, control characters
// refused, a timeout interrupted), watchers with replay, a secret redacted,
// confinement by bubblewrap on the host (nothing of the machine's user's files
// in sight) and, where bubblewrap is not used, the machine's user under
// ulimits; closing kills the remote session and keeps the workspace.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_LIMITS } from "@/server/compute";
import { RemotePod, connectMachine, ed25519KeyPair, pushWorkspace, removeRunFolder, type MachineConnection } from "@/server/machines";
import { startTestSshd, type TestSshd } from "./helpers/sshd";
import { waitFor } from "./helpers/wait";

let sshd: TestSshd;
let conn: MachineConnection;
let dir: string;
let pod: RemotePod;
const runId = `pod-${crypto.randomBytes(4).toString("hex")}`;
const userRunId = `${runId}-u`;

async function sh(command: string) {
  const r = await conn.exec(command);
  return r.stdout;
}

beforeAll(async () => {
  sshd = await startTestSshd();
  const pair = ed25519KeyPair();
  sshd.authorize(pair.public);
  conn = await connectMachine(
    { name: "pod-box", host: sshd.host, port: sshd.port, user: sshd.user },
    { privateKey: pair.private, pinnedFingerprint: sshd.fingerprint() },
  );
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-remote-pod-"));
  fs.writeFileSync(path.join(dir, "hello.txt"), "hello from the workspace\n");
  await pushWorkspace(conn, dir, runId);
  pod = await RemotePod.open({ conn, runId, workspaceDir: dir, confinement: "bubblewrap", limits: DEFAULT_LIMITS });
}, 60_000);

afterAll(async () => {
  await pod?.dispose();
  if (conn && !conn.isClosed) {
    for (const id of [runId, userRunId]) await removeRunFolder(conn, id).catch(() => undefined);
    conn.close();
  }
  await sshd?.cleanup();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("a terminal pod over SSH", () => {
  it("runs a command in the workspace: output and exit code", async () => {
    const ok = await pod.exec("cat hello.txt && pwd", { timeoutMs: 10_000 });
    expect(ok).toMatchObject({ exitCode: 0, truncatedChars: 0 });
    expect(ok.output.trim()).toBe("hello from the workspace\n/workspace");
    const failed = await pod.exec("echo oops >&2; exit_code() { return 7; }; exit_code", { timeoutMs: 10_000 });
    expect(failed.exitCode).toBe(7);
    expect(failed.output).toContain("oops");
    const multi = await pod.exec("for i in 1 2 3; do\n\techo line $i\ndone", { timeoutMs: 10_000 });
    expect(multi.output.trim().split("\n").slice(-3)).toEqual(["line 1", "line 2", "line 3"]);
  });

  it("streams to watchers, with what was printed before replayed once", async () => {
    const seen: string[] = [];
    const stop = pod.onData((c) => seen.push(c), { replay: true });
    await pod.exec("echo streamed-$((6*7))", { timeoutMs: 10_000 });
    stop();
    const all = seen.join("");
    expect(all).toContain("streamed-42");
    expect(all).toContain("hello from the workspace");
  });

  it("refuses control characters, and interrupts a command past its time", async () => {
    await expect(pod.exec("echo a\u0015rm -rf x", { timeoutMs: 5000 })).rejects.toMatchObject({ code: "INVALID_COMMAND" });
    await expect(pod.exec("sleep 30", { timeoutMs: 500 })).rejects.toMatchObject({ code: "TIMEOUT" });
    expect((await pod.exec("echo still-here", { timeoutMs: 10_000 })).output).toContain("still-here");
  });

  it("gives a command its secret without typing it, and redacts it from everything printed", async () => {
    const value = `s3cret-${crypto.randomBytes(6).toString("hex")}`;
    const seen: string[] = [];
    const stop = pod.onData((c) => seen.push(c));
    const r = await pod.exec('echo "token=$API_TOKEN"', { timeoutMs: 10_000, env: { API_TOKEN: value } });
    stop();
    expect(r.output).toContain("token=");
    expect(r.output).not.toContain(value);
    expect(seen.join("")).not.toContain(value);
    expect((await pod.exec('echo "after=[$API_TOKEN]"', { timeoutMs: 10_000 })).output).toContain("after=[]");
    expect(await sh(`ls -A rein-runs/${runId}/secrets`)).toBe("");
  });

  it("confined by bubblewrap: the workspace is the only writable folder, nothing of the machine's user in sight", async () => {
    const r = await pod.exec(
      `ls -A /home 2>&1; cat ~/.ssh/authorized_keys 2>&1; cat /home/${sshd.user}/.profile 2>&1; id -un; touch /usr/x 2>&1; echo w > made.txt`,
      { timeoutMs: 10_000 },
    );
    expect(r.output).toMatch(/No such file or directory/);
    expect(r.output).not.toMatch(/ssh-ed25519/);
    expect(r.output).toContain("rein");
    expect(r.output).toMatch(/Read-only file system/);
    expect(await sh(`cat rein-runs/${runId}/workspace/made.txt`)).toBe("w\n");
    const net = await pod.exec(`cat < /dev/tcp/${sshd.host}/22 2>&1 | head -c 3; echo`, { timeoutMs: 10_000 });
    expect(net.output).not.toContain("SSH");
  });

  it("closing kills the session on the machine and keeps the workspace there until it is pulled", async () => {
    await pod.exec("(sleep 300 &) ; echo started", { timeoutMs: 10_000 });
    // The background shell has forked; its sleep is there once it has started.
    await waitFor(async () => (await sh("pgrep -u $(id -u) -f 'slee[p] 300' | wc -l")) !== "0\n" || null, "the sleep to start", {
      intervalMs: 50,
    });
    await pod.dispose("test over");
    expect(pod.alive()).toBe(false);
    expect(await sh("pgrep -u $(id -u) -f 'slee[p] 300' | wc -l")).toBe("0\n");
    expect(await sh(`ls -A rein-runs/${runId}`)).toBe("workspace\n");
    expect(await sh(`cat rein-runs/${runId}/workspace/hello.txt`)).toBe("hello from the workspace\n");
  });
});

describe("without bubblewrap", () => {
  it("runs as the machine's user in the run's folder, under the pod's ulimits", async () => {
    await pushWorkspace(conn, dir, userRunId);
    const user = await RemotePod.open({ conn, runId: userRunId, workspaceDir: dir, confinement: "user", limits: DEFAULT_LIMITS });
    try {
      const r = await user.exec("pwd; id -un; ulimit -f; ulimit -c", { timeoutMs: 10_000 });
      const [cwd, who, fsize, core] = r.output.trim().split("\n").slice(-4);
      expect(cwd).toMatch(new RegExp(`/rein-runs/${userRunId}/workspace$`));
      expect(who).toBe(sshd.user);
      expect(Number(fsize)).toBe(DEFAULT_LIMITS.fileSizeMb * 1024);
      expect(core).toBe("0");
      await user.exec("(sleep 301 &) ; echo started", { timeoutMs: 10_000 });
      await waitFor(async () => (await sh("pgrep -u $(id -u) -f 'slee[p] 301' | wc -l")) !== "0\n" || null, "the sleep to start", {
        intervalMs: 50,
      });
    } finally {
      await user.dispose();
    }
    expect(await sh("pgrep -u $(id -u) -f 'slee[p] 301' | wc -l")).toBe("0\n");
  });
});
