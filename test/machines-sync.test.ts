// Workspace sync to a remote machine (docs/desktops-and-tiers.md#workspace-sync)
// against a real OpenSSH server in a network namespace (test/helpers/sshd.ts):
// a round trip of a small tree with a symlink inside, a symlink leading out
// (left out on push), a 10 MB file; what the machine sends back that is not a
// plain part of a workspace (symlinks leading out, special files) refused on
// pull; the bounds; the workspace untouched by a pull that fails.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connectMachine,
  ed25519KeyPair,
  pullWorkspace,
  pushInPlace,
  pushWorkspace,
  removeRunFolder,
  type MachineConnection,
} from "@/server/machines";
import { startTestSshd, type TestSshd } from "./helpers/sshd";

let sshd: TestSshd;
let conn: MachineConnection;
let home: string;
let dir: string;
const runId = `sync-${crypto.randomBytes(4).toString("hex")}`;
const big = crypto.randomBytes(10 * 1024 * 1024);
// The machine's bubblewrap works here: pulls read in a sandbox on it (the SFTP walk of machines without it: test/attack/machines-sync.test.ts).
const confinement = "bubblewrap" as const;
const sha = (b: Buffer) => crypto.createHash("sha256").update(b).digest("hex");

async function sh(command: string) {
  const r = await conn.exec(command);
  if (r.code !== 0) throw new Error(`${command}: ${r.stderr}`);
  return r.stdout;
}

beforeAll(async () => {
  sshd = await startTestSshd();
  const pair = ed25519KeyPair();
  sshd.authorize(pair.public);
  conn = await connectMachine(
    { name: "sync-box", host: sshd.host, port: sshd.port, user: sshd.user },
    { privateKey: pair.private, pinnedFingerprint: sshd.fingerprint() },
  );
  home = (await sh("pwd")).trim();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-sync-"));
}, 60_000);

afterAll(async () => {
  if (conn && !conn.isClosed) {
    await removeRunFolder(conn, runId).catch(() => undefined);
    conn.close();
  }
  await sshd?.cleanup();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("push and pull", () => {
  it("pushes a tree into ~/rein-runs/<run>/workspace (0700): files, modes, a 10 MB file, a symlink inside; a symlink out is left out", async () => {
    const ws = path.join(dir, "ws");
    fs.mkdirSync(path.join(ws, "src/deep"), { recursive: true });
    fs.writeFileSync(path.join(ws, "README.md"), "hello\n");
    fs.writeFileSync(path.join(ws, "src/run.sh"), "#!/bin/sh\necho ran\n", { mode: 0o755 });
    fs.writeFileSync(path.join(ws, "src/deep/ünïcode name with spaces.txt"), "u\n");
    fs.writeFileSync(path.join(ws, "big.bin"), big);
    fs.symlinkSync("../README.md", path.join(ws, "src/readme-link"));
    fs.symlinkSync("/etc/passwd", path.join(ws, "passwd-link"));
    fs.symlinkSync("../../..", path.join(ws, "up-link"));

    const report = await pushWorkspace(conn, ws, runId);
    expect(report).toMatchObject({ direction: "push", files: 4, dirs: 2, symlinks: 1 });
    expect(report.bytes).toBe(big.length + 6 + 19 + 2);
    expect(report.skipped.map((s) => s.path).sort()).toEqual(["passwd-link", "up-link"]);
    expect(report.skipped[0].why).toBe("a symlink leading out of the workspace");

    const at = `rein-runs/${runId}/workspace`;
    expect(await sh(`stat -c %a rein-runs rein-runs/${runId} ${at}`)).toBe("700\n700\n700\n");
    expect(await sh(`cd ${at} && ./src/run.sh && cat src/readme-link && readlink src/readme-link`)).toBe("ran\nhello\n../README.md\n");
    expect(await sh(`sha256sum ${at}/big.bin`)).toContain(sha(big));
    expect(await sh(`cat '${at}/src/deep/ünïcode name with spaces.txt'`)).toBe("u\n");
    expect(await sh(`ls -A ${at}`)).not.toMatch(/passwd-link|up-link/);
  });

  it("pulls back what the machine has: changes, new files and removals, the workspace replaced whole", async () => {
    const ws = path.join(dir, "ws");
    const at = `rein-runs/${runId}/workspace`;
    await sh(
      `cd ${at} && echo changed > README.md && rm src/run.sh && mkdir -p out && printf made > out/new.txt && ln -s out/new.txt new-link`,
    );
    const report = await pullWorkspace(conn, ws, runId, { confinement });
    expect(report).toMatchObject({ direction: "pull", files: 4, symlinks: 2, skipped: [] });
    expect(fs.readFileSync(path.join(ws, "README.md"), "utf8")).toBe("changed\n");
    expect(fs.existsSync(path.join(ws, "src/run.sh"))).toBe(false);
    expect(fs.readFileSync(path.join(ws, "out/new.txt"), "utf8")).toBe("made");
    expect(fs.readlinkSync(path.join(ws, "new-link"))).toBe("out/new.txt");
    expect(fs.readlinkSync(path.join(ws, "src/readme-link"))).toBe("../README.md");
    expect(sha(fs.readFileSync(path.join(ws, "big.bin")))).toBe(sha(big));
    // The symlinks leading out were never on the machine, so they are not back either.
    expect(fs.existsSync(path.join(ws, "passwd-link"))).toBe(false);
    expect(fs.existsSync(`${ws}.pull`) || fs.existsSync(`${ws}.before-pull`)).toBe(false);
  });
});

describe("what the machine sends back is hostile", () => {
  it("refuses symlinks leading out, absolute symlinks and special files; the rest arrives", async () => {
    const ws = path.join(dir, "ws");
    const at = `rein-runs/${runId}/workspace`;
    await sh(
      `cd ${at} && ln -s /etc/shadow abs-link && ln -s ../../../.ssh up-link && ln -s ${home}/.ssh home-link && mkfifo fifo && printf ok > fine.txt`,
    );
    const report = await pullWorkspace(conn, ws, runId, { confinement });
    expect(report.skipped.map((s) => `${s.path}: ${s.why}`).sort()).toEqual([
      "abs-link: a symlink leading out of the workspace",
      "fifo: not a file, folder or symlink",
      "home-link: a symlink leading out of the workspace",
      "up-link: a symlink leading out of the workspace",
    ]);
    for (const name of ["abs-link", "up-link", "home-link", "fifo"]) expect(fs.existsSync(path.join(ws, name))).toBe(false);
    expect(fs.readFileSync(path.join(ws, "fine.txt"), "utf8")).toBe("ok");
    await sh(`cd ${at} && rm abs-link up-link home-link fifo`);
  });

  it("a pull past its bounds fails with words and leaves the workspace as it was", async () => {
    const ws = path.join(dir, "ws");
    const before = fs.readdirSync(ws).sort();
    await expect(
      pullWorkspace(conn, ws, runId, { confinement, limits: { maxBytes: 1024 * 1024, maxEntries: 1000 } }),
    ).rejects.toMatchObject({
      code: "SYNC_LIMIT",
      message: "The workspace holds more than 1 MiB",
    });
    await expect(pullWorkspace(conn, ws, runId, { confinement, limits: { maxBytes: 1e9, maxEntries: 3 } })).rejects.toMatchObject({
      code: "SYNC_LIMIT",
      message: "The workspace has more than 3 files and folders",
    });
    expect(fs.readdirSync(ws).sort()).toEqual(before);
    expect(sha(fs.readFileSync(path.join(ws, "big.bin")))).toBe(sha(big));
  });

  it("a pull past its time limit fails with words and leaves the workspace as it was", async () => {
    const ws = path.join(dir, "ws");
    const before = fs.readdirSync(ws).sort();
    // 1 ms: no machine sends a workspace back that fast (50 ms was not always too little for 10 MB here).
    await expect(pullWorkspace(conn, ws, runId, { confinement, timeoutMs: 1 })).rejects.toMatchObject({
      code: "SYNC_FAILED",
      message: expect.stringMatching(/^The machine did not send the workspace back within /),
    });
    expect(fs.readdirSync(ws).sort()).toEqual(before);
    expect(fs.existsSync(`${ws}.pull`)).toBe(false);
  });

  it("a push past its bounds fails with words", async () => {
    const ws = path.join(dir, "ws");
    await expect(pushWorkspace(conn, ws, runId, { limits: { maxBytes: 1024, maxEntries: 1000 } })).rejects.toMatchObject({
      code: "SYNC_LIMIT",
    });
  });

  it("a run id that is not one is refused before anything is typed", async () => {
    await expect(pushWorkspace(conn, path.join(dir, "ws"), "x; rm -rf ~")).rejects.toMatchObject({ code: "SYNC_FAILED" });
  });

  for (const mode of ["bubblewrap", "user"] as const) {
    it(`a push in place (${mode}) makes the machine's folder what the workspace holds, the folder itself kept; a symlink left there leads nowhere`, async () => {
      const id = `${runId}-inplace-${mode}`;
      const ws = path.join(dir, `inplace-${mode}`);
      fs.mkdirSync(path.join(ws, "src"), { recursive: true });
      fs.writeFileSync(path.join(ws, "keep.txt"), "v1\n");
      fs.writeFileSync(path.join(ws, "gone.txt"), "gone\n");
      await pushWorkspace(conn, ws, id);
      const at = `rein-runs/${id}/workspace`;
      const inode = await sh(`stat -c %i ${at}`);
      // On the machine the run left a symlink to a folder of its user outside the workspace.
      const victim = `rein-runs/${id}-victim`;
      await sh(`mkdir -p ${victim} && echo mine > ${victim}/own.txt && ln -s ${home}/${victim} ${at}/escape`);
      // Here the file tools changed the workspace: one file changed, one removed, one new, and a folder where the symlink is.
      fs.writeFileSync(path.join(ws, "keep.txt"), "v2\n");
      fs.rmSync(path.join(ws, "gone.txt"));
      fs.writeFileSync(path.join(ws, "src/new.txt"), "new\n");
      fs.mkdirSync(path.join(ws, "escape"));
      fs.writeFileSync(path.join(ws, "escape/own.txt"), "overwritten?\n");

      const report = await pushInPlace(conn, ws, id, { confinement: mode });
      expect(report).toMatchObject({ direction: "push", files: 3, dirs: 2, symlinks: 0 });
      expect(await sh(`stat -c %i ${at}`)).toBe(inode);
      expect(await sh(`cd ${at} && find . -mindepth 1 | sort`)).toBe("./escape\n./escape/own.txt\n./keep.txt\n./src\n./src/new.txt\n");
      expect(await sh(`cat ${at}/keep.txt ${at}/src/new.txt`)).toBe("v2\nnew\n");
      expect(await sh(`test -L ${at}/escape || echo folder`)).toBe("folder\n");
      expect(await sh(`cat ${victim}/own.txt`)).toBe("mine\n");
      await sh(`rm -rf rein-runs/${id} ${victim}`);
    });
  }
});
