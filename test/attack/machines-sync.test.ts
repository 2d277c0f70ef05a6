// Attack suite: workspace sync to a remote machine
// (docs/desktops-and-tiers.md#workspace-sync). The agent controls the
// workspace here and everything in the run's folder on the machine (its
// commands run there). Against a real sshd in a network namespace
// (test/helpers/sshd.ts), two runs sharing the machine's user:
// - pull: a folder named with bytes that are not UTF-8 beside a symlink whose
//   name is how SFTP decodes those bytes (U+FFFD): Rein listed a folder and
//   then opened the symlink by the same name, reading another run's folder;
// - push: the same collision, a symlink then a file: Rein created the symlink
//   and then wrote the file through it, into another run's folder;
// - a chain of symlinks each lexically inside (`a/b/c/l -> ../../..`, then
//   `out -> a/b/c/l/../../..`) that leads out of the workspace, kept both ways;
// - names the walk leaves out (fifos, symlinks leading out) counted by no
//   bound: a machine listing them without end kept the pull going forever.
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMachine, ed25519KeyPair, pullWorkspace, pushWorkspace, removeRunFolder, type MachineConnection } from "@/server/machines";
import { startTestSshd, type TestSshd } from "../helpers/sshd";

let sshd: TestSshd;
let conn: MachineConnection;
let dir: string;
const id = crypto.randomBytes(4).toString("hex");
const victim = `atk-victim-${id}`;
const attacker = `atk-agent-${id}`;
const secret = `victim-secret-${id}`;
const runs = [victim, attacker, `${attacker}-2`, `${attacker}-3`, `${attacker}-4`, `${attacker}-5`];
// The machine's bubblewrap works here: a pull reads in a sandbox on it ("bubblewrap") or walks over SFTP ("user").
const CONFINEMENTS = ["bubblewrap", "user"] as const;

async function sh(command: string) {
  const r = await conn.exec(command, { signal: AbortSignal.timeout(20_000) });
  if (r.code !== 0) throw new Error(`${command}: ${r.stderr}`);
  return r.stdout;
}

function workspace(name: string): string {
  const ws = path.join(dir, name);
  fs.mkdirSync(ws, { recursive: true });
  return ws;
}

/** Every file under a local folder, read without following symlinks. */
function filesUnder(root: string): Array<{ rel: string; content: string }> {
  const out: Array<{ rel: string; content: string }> = [];
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      else if (e.isFile()) out.push({ rel: r, content: fs.readFileSync(path.join(root, r), "utf8") });
    }
  };
  walk("");
  return out;
}

const victimFile = () => sh(`cat rein-runs/${victim}/workspace/victim.txt`);

beforeAll(async () => {
  sshd = await startTestSshd();
  const pair = ed25519KeyPair();
  sshd.authorize(pair.public);
  conn = await connectMachine(
    { name: "sync-attack-box", host: sshd.host, port: sshd.port, user: sshd.user },
    { privateKey: pair.private, pinnedFingerprint: sshd.fingerprint() },
  );
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-sync-attack-"));
  // Another run on the same machine, with a file of its own.
  const v = workspace("victim");
  fs.writeFileSync(path.join(v, "victim.txt"), secret);
  await pushWorkspace(conn, v, victim);
}, 60_000);

afterAll(async () => {
  if (conn && !conn.isClosed) {
    for (const run of runs) await removeRunFolder(conn, run).catch(() => undefined);
    conn.close();
  }
  await sshd?.cleanup();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("names that are not UTF-8 colliding with U+FFFD", () => {
  it("pull: a folder named with a bad byte beside a symlink named U+FFFD does not read another run's folder", async () => {
    const ws = workspace("pull-collide");
    await pushWorkspace(conn, ws, attacker);
    // What the agent's commands on the machine do (bubblewrap or not): 16 pairs, so
    // that the folder comes first in the listing for some of them.
    await sh(
      `cd rein-runs/${attacker}/workspace && for i in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do ` +
        `mkdir "$(printf "p$i\\377")" && ln -s "$HOME/rein-runs/${victim}/workspace" "$(printf "p$i\\357\\277\\275")"; done`,
    );
    for (const confinement of CONFINEMENTS) {
      const report = await pullWorkspace(conn, ws, attacker, { confinement }).catch((err: Error) => err);
      const leaked = filesUnder(ws).filter((f) => f.content.includes(secret));
      expect(leaked).toEqual([]);
      expect(report).not.toBeInstanceOf(Error);
      expect((report as { skipped: Array<{ why: string }> }).skipped.some((s) => s.why === "a name that is not UTF-8")).toBe(true);
    }
    expect(await victimFile()).toBe(secret);
  });

  it("push: a symlink and a file whose names decode alike do not write into another run's folder", async () => {
    const ws = workspace("push-collide");
    fs.mkdirSync(path.join(ws, "d1"));
    // d1/l is the workspace itself; from there two levels up is ~/rein-runs on the machine.
    fs.symlinkSync("..", path.join(ws, "d1/l"));
    const target = `d1/l/../../${victim}/workspace/victim.txt`;
    // Pick two bad bytes for which tar lists the symlink before the file (the order of the folder's entries).
    let found = false;
    for (let a = 0x80; a <= 0xff && !found; a++) {
      const link = Buffer.from([0x71, a]);
      const file = Buffer.from([0x71, a === 0xff ? 0xfe : 0xff]);
      fs.symlinkSync(target, Buffer.concat([Buffer.from(`${ws}/`), link]));
      fs.writeFileSync(Buffer.concat([Buffer.from(`${ws}/`), file]), "tampered by another run");
      const listing = execFileSync("tar", ["-c", "-f", "-", "--format=pax", "."], { cwd: ws, env: { ...process.env, LC_ALL: "C" } });
      const at = (name: Buffer) => listing.indexOf(Buffer.concat([Buffer.from("./"), name, Buffer.from([0])]));
      if (at(link) >= 0 && at(file) >= 0 && at(link) < at(file)) found = true;
      else for (const name of [link, file]) fs.rmSync(Buffer.concat([Buffer.from(`${ws}/`), name]));
    }
    expect(found).toBe(true);
    const report = await pushWorkspace(conn, ws, `${attacker}-2`).catch((err: Error) => err);
    expect(await victimFile()).toBe(secret);
    expect(report).not.toBeInstanceOf(Error);
  });
});

describe("symlinks leading out through another symlink", () => {
  it("pull: a chain of symlinks each lexically inside but leading out is left out", async () => {
    const ws = workspace("pull-chain");
    await pushWorkspace(conn, ws, `${attacker}-3`);
    await sh(`cd rein-runs/${attacker}-3/workspace && mkdir -p a/b/c && ln -s ../../.. a/b/c/l && ln -s a/b/c/l/../../.. out`);
    for (const confinement of CONFINEMENTS) {
      const report = await pullWorkspace(conn, ws, `${attacker}-3`, { confinement });
      // Here the chain would lead three folders above the workspace, onto the server's own files.
      expect(report.skipped.map((s) => `${s.path}: ${s.why}`)).toContain("out: a symlink leading out of the workspace");
      expect(fs.existsSync(path.join(ws, "out"))).toBe(false);
    }
  });

  it("push: the same chain in the workspace is left out", async () => {
    const ws = workspace("push-chain");
    fs.mkdirSync(path.join(ws, "a/b/c"), { recursive: true });
    fs.symlinkSync("../../..", path.join(ws, "a/b/c/l"));
    fs.symlinkSync("a/b/c/l/../../..", path.join(ws, "out"));
    const report = await pushWorkspace(conn, ws, `${attacker}-3`);
    expect(report.skipped.map((s) => `${s.path}: ${s.why}`)).toContain("out: a symlink leading out of the workspace");
    expect(await sh(`ls -A rein-runs/${attacker}-3/workspace`)).not.toMatch(/out/);
  });
});

describe("bounds", () => {
  it("pull: names left out (fifos, symlinks leading out) count toward the entries bound", async () => {
    const ws = workspace("pull-skipped");
    await pushWorkspace(conn, ws, `${attacker}-4`);
    await sh(`cd rein-runs/${attacker}-4/workspace && i=0; while [ $i -lt 60 ]; do mkfifo f$i && ln -s /etc/passwd l$i; i=$((i+1)); done`);
    for (const confinement of CONFINEMENTS)
      await expect(
        pullWorkspace(conn, ws, `${attacker}-4`, { confinement, limits: { maxBytes: 1e9, maxEntries: 50 } }),
      ).rejects.toMatchObject({ code: "SYNC_LIMIT" });
  });
});

describe("a run still running on the machine while it is pulled", () => {
  it("pull (bubblewrap): folders swapped for symlinks to another run's folder while the pull reads never bring its files back", async () => {
    const run = `${attacker}-5`;
    const ws = workspace("pull-swap");
    await pushWorkspace(conn, ws, run);
    const at = `rein-runs/${run}/workspace`;
    await sh(`cd ${at} && mkdir d0 d1 d2 && for i in $(seq 1 50); do echo $i > f$i; done`);
    // A process of the run (in its pod it can name another run's folder, not read it) keeps swapping
    // each of d0..d2 between an empty folder and a symlink to the victim's workspace, at random,
    // a folder about a third of the time: Rein may list one as a folder and read it as the symlink.
    const swapper =
      `cd ${at} && exec timeout 30 perl -e '` +
      `my $t = shift; my @n = ("d0", "d1", "d2");` +
      `while (!-e "../stop") { my $d = $n[int rand 3];` +
      ` if (-l $d) { if (rand() < 0.5) { unlink $d; mkdir $d } } else { rmdir $d; symlink $t, $d }` +
      ` select(undef, undef, undef, 0.0003) }' "$HOME/rein-runs/${victim}/workspace"`;
    const loop = conn.exec(swapper, { signal: AbortSignal.timeout(40_000) });
    let pulled = 0;
    const leaks: string[] = [];
    try {
      for (let i = 0; i < 15; i++) {
        const report = await pullWorkspace(conn, ws, run, { confinement: "bubblewrap" }).catch((err: Error) => err);
        if (!(report instanceof Error)) pulled++;
        for (const f of filesUnder(ws)) if (f.content.includes(secret)) leaks.push(`pull ${i}: ${f.rel}`);
      }
    } finally {
      await sh(`touch rein-runs/${run}/stop`);
      await loop;
    }
    expect(leaks).toEqual([]);
    // Not a vacuous pass: the pulls went through while the folders were being swapped.
    expect(pulled).toBeGreaterThan(0);
    expect(await victimFile()).toBe(secret);
  }, 30_000);
});

describe("a machine that stops answering", () => {
  it("a command, an SFTP session and a push each give up at their time limit, in words, instead of waiting for good", async () => {
    const pair = ed25519KeyPair();
    sshd.authorize(pair.public);
    const quiet = await connectMachine(
      { name: "quiet-box", host: sshd.host, port: sshd.port, user: sshd.user },
      { privateKey: pair.private, pinnedFingerprint: sshd.fingerprint() },
    );
    const ws = workspace("quiet");
    fs.writeFileSync(path.join(ws, "a.txt"), "a");
    // Every session on the machine stops where it is: the connections stay up, nothing answers.
    const thaw = sshd.freezeConnections();
    try {
      const started = Date.now();
      await expect(quiet.exec("true", { signal: AbortSignal.timeout(300) })).rejects.toThrow("The command was stopped");
      await expect(quiet.sftp(300)).rejects.toThrow("The machine did not open SFTP within 0.3 s");
      await expect(pushWorkspace(quiet, ws, `${attacker}-5`, { timeoutMs: 500 })).rejects.toThrow(
        "The workspace was not copied to the machine within 0.5 s",
      );
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      thaw();
      quiet.close();
    }
  }, 20_000);
});
