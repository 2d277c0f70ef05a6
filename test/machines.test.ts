// Remote machines (docs/desktops-and-tiers.md#t3-remote-machines) against a
// real OpenSSH server in a network namespace this file makes
// (test/helpers/sshd.ts): registering, the first contact's fingerprint as
// ssh-keygen prints it, pinning, the connection test in words, exec with
// streamed output and exit code, a PTY, SFTP, and a replaced host key refused.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MachineConnectError, hostKeyChanged, openMachine, type MachineDeps } from "@/server/machines";
import { createTestKernel, type TestKernel } from "./helpers/kernel";
import { callerFor } from "./helpers/services";
import { startTestSshd, type TestSshd } from "./helpers/sshd";

let tk: TestKernel;
let sshd: TestSshd;
let deps: MachineDeps;
let id: string;

const admin = () => callerFor(tk, tk.actors.admin);

async function codeOf(call: Promise<unknown>): Promise<string> {
  return call.then(
    () => "OK",
    (err: { code?: string; data?: { code?: string } }) => err.data?.code ?? err.code ?? "?",
  );
}

beforeAll(async () => {
  [tk, sshd] = await Promise.all([createTestKernel({ secrets: true }), startTestSshd()]);
  deps = { db: tk.t.db, keyring: tk.keyring!, timeoutMs: 5000 };
}, 60_000);

afterAll(async () => {
  await sshd?.cleanup();
  await tk?.cleanup();
});

describe("registering and pinning", () => {
  it("registers a machine with a key pair of its own: the public key to install, the private key sealed", async () => {
    const m = await admin().machines.register({
      name: "build-box",
      host: sshd.host,
      user: sshd.user,
      labels: ["gpu", "x86"],
      concurrency: 2,
    });
    id = m.id;
    expect(m).toMatchObject({
      port: 22,
      labels: ["gpu", "x86"],
      concurrency: 2,
      team: null,
      state: "not_confirmed",
      hostKeyFingerprint: null,
    });
    expect(m.publicKey).toMatch(/^ssh-ed25519 AAAA[A-Za-z0-9+/=]+ rein-build-box$/);
    const row = await tk.t.db.machine.findUniqueOrThrow({ where: { id } });
    expect(row.privateKeySealed).not.toContain("PRIVATE KEY");
    expect(JSON.stringify(m)).not.toContain(row.privateKeySealed);
    sshd.authorize(m.publicKey);
  });

  it("the first contact shows the host key's fingerprint as ssh-keygen -lf prints it; the test waits for a confirmation", async () => {
    const seen = await admin().machines.contact({ id });
    expect(seen.fingerprint).toBe(sshd.fingerprint());
    expect(seen.pinned).toBe(false);
    expect(seen.words).toContain(sshd.fingerprint());
    expect(await codeOf(admin().machines.test({ id }))).toBe("CONFLICT");
    await expect(openMachine(deps, id)).rejects.toThrow(/not confirmed yet/);
  });

  it("confirming pins the key; the test then connects and says what it found, in words", async () => {
    const pinned = await admin().machines.confirmKey({ id, fingerprint: sshd.fingerprint() });
    expect(pinned).toMatchObject({ state: "ready", hostKeyFingerprint: sshd.fingerprint() });
    const result = await admin().machines.test({ id });
    expect(result.ok).toBe(true);
    expect(result.words).toMatch(
      new RegExp(
        `^Connected to build-box \\(${sshd.host.replace(/\./g, "\\.")}:22\\) as rein-t3 in \\d+ ms; host key ${sshd.fingerprint().replace(/\+/g, "\\+")}; Linux \\S+, \\d+ CPUs?; bubblewrap \\d+\\.\\d+(\\.\\d+)? is installed, commands will run confined$`,
      ),
    );
    expect(result.machine).toMatchObject({ state: "ready", confinement: "bubblewrap", lastError: null });
    expect(result.machine.facts).toMatchObject({ os: "Linux", bwrapWorks: true });
    expect(result.machine.facts!.cpus).toBeGreaterThan(0);
    expect(result.machine.lastSeenAt).toBeInstanceOf(Date);
    const kinds = (await tk.t.db.auditEntry.findMany({ where: { subject: "build-box" }, select: { kind: true } })).map((a) => a.kind);
    expect(kinds).toEqual(
      expect.arrayContaining(["machine.registered", "machine.contacted", "machine.host_key_confirmed", "machine.tested"]),
    );
  });

  it("a machine that refuses Rein's key is Unreachable, with what to do", async () => {
    const other = await admin().machines.register({ name: "no-key", host: sshd.host, user: sshd.user });
    await admin().machines.confirmKey({ id: other.id, fingerprint: (await admin().machines.contact({ id: other.id })).fingerprint });
    const result = await admin().machines.test({ id: other.id });
    expect(result.ok).toBe(false);
    expect(result.words).toBe("The machine refused Rein's key: add this public key to ~rein-t3/.ssh/authorized_keys");
    expect(result.machine).toMatchObject({ state: "unreachable", lastError: result.words });
  });

  it("nothing listening: connection refused, in words, and nothing is pinned", async () => {
    const closed = await admin().machines.register({ name: "closed-port", host: sshd.host, port: 2, user: sshd.user });
    await expect(admin().machines.contact({ id: closed.id })).rejects.toThrow("Could not connect: connection refused");
    await expect(admin().machines.confirmKey({ id: closed.id, fingerprint: sshd.fingerprint() })).rejects.toThrow(
      "Could not connect: connection refused; nothing was pinned",
    );
    expect((await admin().machines.get({ id: closed.id })).state).toBe("not_confirmed");
  });
});

describe("a connection", () => {
  it("exec streams the output as it comes and ends with the exit code", async () => {
    const conn = await openMachine(deps, id);
    try {
      const seen: string[] = [];
      const result = await conn.exec("echo one; sleep 0.2; echo two >&2; exit 3", { onData: (c, s) => seen.push(`${s}:${c.toString()}`) });
      expect(seen).toEqual(["stdout:one\n", "stderr:two\n"]);
      expect(result).toMatchObject({ code: 3, stdout: "one\n", stderr: "two\n", truncated: false });
      expect((await conn.exec("id -un")).stdout).toBe("rein-t3\n");
      // Bounded: what is kept stops at the cap.
      const big = await conn.exec("head -c 300000 /dev/zero | tr '\\0' x", { maxOutputBytes: 1000 });
      expect(big).toMatchObject({ code: 0, truncated: true });
      expect(big.stdout).toHaveLength(1000);
      // Stopped: the call ends at once, the connection stays usable.
      const ac = new AbortController();
      const started = Date.now();
      setTimeout(() => ac.abort(), 200);
      await expect(conn.exec("sleep 30", { signal: ac.signal })).rejects.toThrow("The command was stopped");
      expect(Date.now() - started).toBeLessThan(5000);
      expect((await conn.exec("echo still here")).stdout).toBe("still here\n");
    } finally {
      conn.close();
    }
  });

  it("a PTY shell and SFTP", async () => {
    const conn = await openMachine(deps, id);
    try {
      const shell = await conn.shell({ cols: 100, rows: 30 });
      let out = "";
      shell.onData((c) => void (out += c.toString()));
      shell.write("stty size; tty; echo $((6*7)); exit 5\n");
      expect(await shell.exited).toEqual({ code: 5, signal: null });
      expect(out).toContain("30 100");
      expect(out).toMatch(/\/dev\/pts\/\d+/);
      expect(out).toContain("42");

      const sftp = await conn.sftp();
      const file = `/tmp/rein-t3-sftp-${process.pid}.txt`;
      await new Promise<void>((resolve, reject) => sftp.writeFile(file, "over sftp", (err) => (err ? reject(err) : resolve())));
      expect((await conn.exec(`cat ${file}; rm -f ${file}`)).stdout).toBe("over sftp");
      sftp.end();
    } finally {
      conn.close();
    }
  });
});

describe("a replaced host key", () => {
  it("is refused with the words, until an admin confirms the new key", async () => {
    const before = sshd.fingerprint();
    await sshd.replaceHostKey();
    const after = sshd.fingerprint();
    expect(after).not.toBe(before);
    const err = await openMachine(deps, id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MachineConnectError);
    expect((err as MachineConnectError).message).toBe(hostKeyChanged(before, after));
    expect((err as MachineConnectError).message).toBe(
      `The machine's host key changed: expected ${before}, got ${after}; if the machine was reinstalled, an admin confirms the new key on its page`,
    );
    const result = await admin().machines.test({ id });
    expect(result).toMatchObject({
      ok: false,
      words: hostKeyChanged(before, after),
      machine: { state: "unreachable", hostKeyFingerprint: before },
    });
    // The admin looks, then confirms the new key; the test passes again.
    expect(await admin().machines.contact({ id })).toMatchObject({ fingerprint: after, pinned: false });
    await admin().machines.confirmKey({ id, fingerprint: after });
    expect((await admin().machines.test({ id })).ok).toBe(true);
  });
});
