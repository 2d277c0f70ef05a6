// The README's first command installs what Rein's sandbox needs: on a machine
// without bubblewrap, `npm run up` (ensure-deps.sh up) puts it on its list.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const script = path.join(__dirname, "ensure-deps.sh");
/** A PATH holding only what the script itself needs, so every system package counts as missing. */
const bin = fs.mkdtempSync(path.join(os.tmpdir(), "rein-deps-path-"));
for (const tool of ["bash", "id", "dirname"]) {
  const found = ["/usr/bin", "/bin"].map((d) => path.join(d, tool)).find((p) => fs.existsSync(p));
  if (found) fs.symlinkSync(found, path.join(bin, tool));
}
afterAll(() => fs.rmSync(bin, { recursive: true, force: true }));

function wouldInstall(mode: "up" | "test"): string[] {
  const out = execFileSync("/bin/bash", [script, mode], {
    env: { PATH: bin, REIN_DEPS_CHECK_ONLY: "1" } as Record<string, string> as NodeJS.ProcessEnv,
    encoding: "utf8",
  });
  const line = out.split("\n").find((l) => l.startsWith("[deps] would install: "));
  expect(line, out).toBeDefined();
  return line!.replace("[deps] would install: ", "").trim().split(/\s+/);
}

describe("ensure-deps.sh", () => {
  it("npm run up installs bubblewrap, git and ripgrep along with the desktop's packages", () => {
    expect(wouldInstall("up")).toEqual(expect.arrayContaining(["bubblewrap", "git", "ripgrep", "xvfb", "x11vnc", "chromium"]));
  });

  it("npm test installs the same and xdotool", () => {
    expect(wouldInstall("test")).toEqual(expect.arrayContaining(["bubblewrap", "git", "ripgrep", "xdotool"]));
  });
});
