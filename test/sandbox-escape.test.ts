// The sandbox escape suite: each attempt must fail safely, and the process
// hosting the pods (this test process, like the server) stays up.
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_LIMITS, PodError, PtyPod, probeSandbox, type PodLimits } from "@/server/compute";

const status = probeSandbox();
const pods: PtyPod[] = [];
const dirs: string[] = [];

async function pod(limits: Partial<PodLimits> = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-escape-"));
  dirs.push(dir);
  const p = await PtyPod.start({ workspaceDir: dir, limits: { ...DEFAULT_LIMITS, ...limits }, sandbox: "bubblewrap" });
  pods.push(p);
  return p;
}

const run = (p: PtyPod, command: string, timeoutMs = 15_000) => p.exec(command, { timeoutMs });

afterEach(async () => {
  await Promise.all(pods.splice(0).map((p) => p.dispose()));
  dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true }));
});

describe.skipIf(!status.ok)("sandbox escape suite (bubblewrap)", () => {
  beforeAll(() => {
    // A file only the host can see, next to a secret the server holds.
    process.env.REIN_ESCAPE_TEST_SECRET = "host-secret-value";
  });

  it("runs as an unprivileged user in its own hostname with the workspace at /workspace", async () => {
    const p = await pod();
    const r = await run(p, "id -u; hostname; pwd");
    expect(r).toMatchObject({ exitCode: 0, output: "1000\nrein-pod\n/workspace\n" });
  });

  it("cannot read or write outside the workspace", async () => {
    const p = await pod();
    const hostFile = path.join(os.tmpdir(), `rein-host-only-${process.pid}.txt`);
    fs.writeFileSync(hostFile, "host data");
    try {
      expect((await run(p, `cat ${hostFile}`)).exitCode).not.toBe(0);
      expect((await run(p, "cat /etc/shadow")).exitCode).not.toBe(0);
      expect((await run(p, "ls /root /home 2>&1; echo listed")).output).not.toMatch(/rein-host-only/);
      const writes = await run(p, "touch /usr/rein-escape 2>&1; touch /etc/rein-escape 2>&1; touch /rein-escape 2>&1; echo done");
      expect(writes.output).toMatch(/Read-only file system|Permission denied/);
      expect(fs.existsSync("/usr/rein-escape") || fs.existsSync("/etc/rein-escape") || fs.existsSync("/rein-escape")).toBe(false);
      // /tmp is the pod's own.
      await run(p, "echo inside > /tmp/rein-private-tmp");
      expect(fs.existsSync("/tmp/rein-private-tmp")).toBe(false);
      // The workspace is writable and is the host directory.
      await run(p, "echo ok > inside.txt");
      expect(fs.readFileSync(path.join(p.workspaceDir, "inside.txt"), "utf8")).toBe("ok\n");
    } finally {
      fs.rmSync(hostFile, { force: true });
    }
  });

  it("gets none of the server's environment", async () => {
    const p = await pod();
    const r = await run(p, "env");
    expect(r.output).not.toContain("host-secret-value");
    expect(r.output).not.toMatch(/NEXTAUTH|DATABASE_URL|REIN_/);
  });

  it("cannot reach the network, not even the host's loopback", async () => {
    let connections = 0;
    const server = net.createServer((s) => {
      connections++;
      s.on("error", () => undefined);
      s.end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as net.AddressInfo;
    try {
      const p = await pod();
      const r = await run(p, `(echo hi > /dev/tcp/127.0.0.1/${port}) 2>&1; echo rc=$?; ls /sys/class/net 2>/dev/null || cat /proc/net/dev`);
      expect(r.output).toMatch(/rc=1/);
      expect(connections).toBe(0);
      expect(r.output).not.toMatch(/eth0|ens|enp/);
    } finally {
      server.close();
    }
  });

  it("cannot see host processes", async () => {
    const p = await pod();
    const r = await run(p, "ps -eo pid,comm --no-headers | wc -l; ls /proc | grep -c '^[0-9]'");
    const [psCount] = r.output.trim().split("\n").map(Number);
    expect(psCount).toBeLessThan(10);
    expect(
      (await run(p, `test -e /proc/${process.pid}/cmdline && grep -c vitest /proc/${process.pid}/cmdline; echo end`)).output,
    ).not.toMatch(/^[1-9]/m);
  });

  it.skipIf(!status.limits.processes)("survives a fork bomb: processes are capped and the pod stays usable", async () => {
    const p = await pod({ processes: 64 });
    // Nothing after the bomb forks: while it holds every process slot, a fork by the
    // shell itself can fail for good on a busy machine, and bash then drops the rest
    // of the line. A busy wait and the kill builtin need no new process.
    const r = await run(
      p,
      "bomb(){ bomb|bomb& }; bomb; SECONDS=0; while ((SECONDS < 2)); do :; done; kill -KILL -1 2>/dev/null; wait 2>/dev/null; echo survived",
      30_000,
    );
    expect(r.output).toMatch(/Resource temporarily unavailable|retry/);
    expect(r.output).toContain("survived");
    expect(p.alive()).toBe(true);
    expect((await run(p, "echo still-usable")).output).toBe("still-usable\n");
  });

  it.skipIf(!status.limits.cpuWeight)("weighs no more for the CPU than the server hosting it", async () => {
    const p = await pod();
    await run(p, "true");
    // The kernel's own account of which cpu group a process is in.
    const cpuGroup = (pid: string) => {
      try {
        const text = fs.readFileSync(`/proc/${pid}/cgroup`, "utf8");
        return (/^\d+:[\w,]*\bcpu\b[\w,]*:(\/.*)$/m.exec(text) ?? /^0::(\/.*)$/m.exec(text))?.[1] ?? "";
      } catch {
        return "";
      }
    };
    const podGroup = fs
      .readdirSync("/proc")
      .filter((pid) => /^\d+$/.test(pid))
      .map(cpuGroup)
      .find((g) => g.endsWith(`/${p.id}`));
    const serverGroup = cpuGroup("self");
    expect(podGroup).toBeDefined();
    // The pod's group and the server's are siblings, and the server weighs at least as much as the pod.
    expect(path.dirname(serverGroup)).toBe(path.dirname(podGroup!));
    expect(path.basename(serverGroup)).toBe(`server-${process.pid}`);
    const weight = (group: string) => {
      const v1 = path.join("/sys/fs/cgroup/cpu", group, "cpu.shares");
      return Number(fs.readFileSync(fs.existsSync(v1) ? v1 : path.join("/sys/fs/cgroup", group, "cpu.weight"), "utf8"));
    };
    expect(weight(podGroup!)).toBeGreaterThan(0);
    expect(weight(serverGroup)).toBeGreaterThanOrEqual(weight(podGroup!));
  });

  it.skipIf(!status.limits.memory)("kills a memory bomb at the memory limit; the pod stays usable", async () => {
    const p = await pod({ memoryMb: 128 });
    const r = await run(p, "node -e 'const a=[]; for(;;) a.push(Buffer.alloc(16*1024*1024, 1))'; echo rc=$?", 60_000);
    expect(r.output).toMatch(/rc=(137|134|1)\b/);
    expect(p.alive()).toBe(true);
    expect((await run(p, "echo after-oom")).output).toBe("after-oom\n");
  });

  it("cannot write a file past the file size limit", async () => {
    const p = await pod({ fileSizeMb: 4 });
    const r = await run(p, "head -c 20000000 /dev/zero > big.bin; echo rc=$?; stat -c %s big.bin");
    expect(r.output).toMatch(/rc=153|File size limit exceeded/);
    expect(fs.statSync(path.join(p.workspaceDir, "big.bin")).size).toBeLessThanOrEqual(4 * 1024 * 1024);
  });

  it("is stopped when it fills its workspace past the disk limit", async () => {
    const p = await pod({ diskMb: 16, fileSizeMb: 8 });
    const exited = new Promise<string>((resolve) => p.onExit((e) => resolve(e.reason)));
    await run(p, "for i in 1 2 3 4; do head -c 8000000 /dev/zero > fill-$i.bin; done; echo written").catch(() => undefined);
    expect(await exited).toMatch(/disk limit of 16 MiB/);
    expect(p.alive()).toBe(false);
  });

  it("is stopped at its wall time, failing the command in flight", async () => {
    const p = await pod({ wallTimeSec: 2 });
    const err = await run(p, "sleep 30", 60_000).catch((e) => e);
    expect(err).toBeInstanceOf(PodError);
    expect(err.message).toMatch(/wall time of 2 s/);
    expect(p.alive()).toBe(false);
  });

  it("interrupts a command past its timeout and keeps the shell", async () => {
    const p = await pod();
    const err = await p.exec("sleep 30", { timeoutMs: 300 }).catch((e) => e);
    expect(err).toMatchObject({ code: "TIMEOUT" });
    expect((await run(p, "echo alive")).output).toBe("alive\n");
  });

  it("leaves no process behind when disposed", async () => {
    const p = await pod();
    // A duration no other process on the machine uses, so the scan below finds only ours.
    const marker = `${300 + Math.floor(Math.random() * 600)}.${process.pid}`;
    await run(p, `(sleep ${marker} &) ; echo started`);
    await p.dispose();
    await new Promise((r) => setTimeout(r, 300));
    const stray = fs
      .readdirSync("/proc")
      .filter((d) => /^\d+$/.test(d))
      .filter((pid) => {
        try {
          return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(`sleep\u0000${marker}`);
        } catch {
          return false;
        }
      });
    expect(stray).toEqual([]);
  });
});

describe("sandbox probe", () => {
  it("says in words whether terminal pods work here", () => {
    expect(status.message).toMatch(/Terminal pods/);
    expect(status.kind).toBe("bubblewrap");
  });
});
