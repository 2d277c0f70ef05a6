// A run's secrets in a terminal pod
// (docs/secrets.md#how-a-tool-gets-the-value): the command gets them as
// variables for its own duration; no value is typed into the terminal, left in
// the workspace, or shown in the terminal's output (what watchers see, the
// screen kept for newcomers, and the command's result).
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_LIMITS, PtyPod, probeSandbox, type SandboxKind } from "./index";

const status = probeSandbox();
const VALUE = 'dpl-Quote\'n "Space" $HOME-7Hq2zX9v';
const sha256 = (s: string) => crypto.createHash("sha256").update(s).digest("hex");

const pods: PtyPod[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(pods.splice(0).map((p) => p.dispose()));
  dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true }));
});

async function startPod(sandbox: SandboxKind) {
  const workspaceDir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-pod-secrets-ws-"));
  const secretsParent = fs.mkdtempSync(path.join(os.tmpdir(), "rein-pod-secrets-parent-"));
  dirs.push(workspaceDir, secretsParent);
  const pod = await PtyPod.start({ workspaceDir, limits: DEFAULT_LIMITS, sandbox, secretsParent });
  pods.push(pod);
  let stream = "";
  pod.onData((chunk) => (stream += chunk), { replay: true });
  return { pod, workspaceDir, secretsParent, stream: () => stream };
}

/** Every file under dir, with its content. */
function filesUnder(dir: string): Array<{ file: string; content: string }> {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => {
      const file = path.join(e.parentPath, e.name);
      return { file, content: fs.readFileSync(file, "utf8") };
    });
}

const kinds: Array<{ kind: SandboxKind; ok: boolean }> = [
  { kind: "bubblewrap", ok: status.ok },
  { kind: "none", ok: true },
];

describe.each(kinds)("secret variables in a $kind pod", ({ kind, ok }) => {
  it.skipIf(!ok)("the command gets the value; its output, the terminal and the workspace never show it", async () => {
    const { pod, workspaceDir, secretsParent, stream } = await startPod(kind);
    const spillPath = path.join(workspaceDir, "out.log");
    const r = await pod.exec('printf %s "$DEPLOY_TOKEN" | wc -c; printf %s "$DEPLOY_TOKEN" | sha256sum; echo "token=$DEPLOY_TOKEN"', {
      timeoutMs: 15_000,
      spillPath,
      env: { DEPLOY_TOKEN: VALUE },
    });
    expect(r.exitCode).toBe(0);
    const [length, hash, echoed] = r.output.trim().split("\n");
    expect(Number(length)).toBe(Buffer.byteLength(VALUE));
    expect(hash.split(" ")[0]).toBe(sha256(VALUE));
    expect(echoed).toBe("token=[secret:DEPLOY_TOKEN]");
    expect(stream()).toContain("token=[secret:DEPLOY_TOKEN]");
    expect(stream()).not.toContain(VALUE);
    expect(stream()).not.toContain("dpl-Quote");
    // The variables end with the command; the file that carried them is gone.
    const after = await pod.exec('echo "[${DEPLOY_TOKEN-unset}]"; env | grep -c DEPLOY_TOKEN || true', { timeoutMs: 15_000 });
    expect(after.output).toBe("[unset]\n0\n");
    for (const { file, content } of [...filesUnder(workspaceDir), ...filesUnder(secretsParent)]) {
      expect(content, file).not.toContain("dpl-Quote");
    }
    expect(filesUnder(secretsParent)).toEqual([]);
  });

  it.skipIf(!ok)("a value printed in two pieces, and a value printed by a person, are redacted too", async () => {
    const { pod, stream, workspaceDir } = await startPod(kind);
    const split = await pod.exec('printf %s "${DEPLOY_TOKEN:0:6}"; printf "%s\\n" "${DEPLOY_TOKEN:6}"', {
      timeoutMs: 15_000,
      env: { DEPLOY_TOKEN: VALUE },
    });
    expect(split.output).toBe("[secret:DEPLOY_TOKEN]\n");
    // Later output of the pod is redacted too (e.g. a person who took over the shell prints a file holding it).
    fs.writeFileSync(path.join(workspaceDir, "later.txt"), `${VALUE}\n`);
    expect((await pod.exec("cat later.txt", { timeoutMs: 15_000 })).output).toBe("[secret:DEPLOY_TOKEN]\n");
    expect(stream()).not.toContain("dpl-Quote");
  });
});

describe("secret variables in a bubblewrap pod", () => {
  it("the secret file is read-only in the sandbox and outside the workspace", async () => {
    expect(status.ok, `bubblewrap must work here: ${status.message}`).toBe(true);
    const { pod } = await startPod("bubblewrap");
    const r = await pod.exec("ls -ld /run/rein; touch /run/rein/x 2>&1; ls -A /workspace", {
      timeoutMs: 15_000,
      env: { A_SECRET: "value-of-a-secret" },
    });
    expect(r.output).toMatch(/Read-only file system/);
    expect(r.output).not.toContain("value-of-a-secret");
  });
});
