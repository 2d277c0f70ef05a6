// Attack suite: a sandbox learns no host path. The data directory's path
// showed in a pod's /proc/1/cmdline (bwrap's own arguments), which is how an
// agent found where the server keeps its keys.
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_LIMITS, PtyPod, probeSandbox } from "@/server/compute";
import { Workspace } from "@/server/tools";
import { makeTempDir } from "../helpers/db";

const dataDir = makeTempDir("rein-attack-data-dir-");
const workspaceDir = path.join(dataDir, "workspaces", "run-paths");
fs.mkdirSync(workspaceDir, { recursive: true });
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

// What an agent can read about itself and its parent without any privilege.
const LOOK = [
  "tr '\\0' ' ' < /proc/1/cmdline; echo",
  "for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null; echo; tr '\\0' '\\n' < $p/environ 2>/dev/null; readlink $p/cwd; done",
  "env",
  "pwd",
].join("; ");

describe.skipIf(!probeSandbox().ok)("no host path inside a sandbox", () => {
  it("a terminal pod's processes, environment and working directory name no host folder", async () => {
    const pod = await PtyPod.start({ workspaceDir, limits: DEFAULT_LIMITS, sandbox: "bubblewrap" });
    try {
      const r = await pod.exec(LOOK, { timeoutMs: 10_000 });
      expect(r.output).toContain("/workspace");
      expect(r.output).not.toContain(dataDir);
      expect(r.output).not.toContain(path.basename(dataDir));
    } finally {
      await pod.dispose();
    }
  });

  it("the file sandbox (git, ripgrep, tar and the file service) names none either", async () => {
    const ws = new Workspace(workspaceDir);
    const r = await ws.run(["bash", "-c", LOOK]);
    const seen = r.stdout.toString("utf8");
    expect(seen).toContain("/workspace");
    expect(seen).not.toContain(dataDir);
    expect(seen).not.toContain(path.basename(dataDir));
  });
});
