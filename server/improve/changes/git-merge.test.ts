// Merging and reverting in the object database: a --no-ff merge commit with
// two parents, refused on a conflicting base and when the branch moved; a
// revert that keeps what came after; no hook of the repository runs and no
// working tree is written.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MergeError, mergeNoFf, mergePreview, revertMerge } from "./git-merge";

const ME = { name: "Rein", email: "rein@localhost" };
let dir: string;
let gitDir: string;

const sh = (args: string[], cwd = dir) =>
  execFileSync("git", ["-c", "user.name=T", "-c", "user.email=t@t", "-c", "core.hooksPath=/dev/null", ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" },
  }).trim();
const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  fs.writeFileSync(path.join(dir, file), text);
};
const show = (rev: string, file: string) => sh(["show", `${rev}:${file}`]);

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-merge-"));
  sh(["init", "-q", "-b", "main"]);
  gitDir = path.join(dir, ".git");
  write("src/price.mjs", "export const price = (n) => n * 0.9;\n");
  write("README.md", "demo\n");
  sh(["add", "-A"]);
  sh(["commit", "-q", "-m", "base"]);
  // A hook that would leave a marker if the server ever ran one.
  for (const hook of ["reference-transaction", "post-merge", "pre-commit", "post-commit"]) {
    fs.writeFileSync(path.join(gitDir, "hooks", hook), `#!/bin/sh\ntouch ${path.join(dir, `HOOK-${hook}`)}\n`, { mode: 0o755 });
  }
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function branchWith(name: string, file: string, text: string) {
  sh(["checkout", "-q", "-b", name, "main"]);
  write(file, text);
  sh(["add", "-A"]);
  sh(["commit", "-q", "-m", `${name}: change ${file}`]);
  sh(["checkout", "-q", "main"]);
}

describe("merging a change request", () => {
  it("writes a --no-ff merge commit with two parents and moves only the branch ref", async () => {
    branchWith("rein/change-1", "src/price.mjs", "export const price = (n) => Math.round(n * 0.9 * 100) / 100;\n");
    const before = sh(["rev-parse", "main"]);
    const worktreeText = fs.readFileSync(path.join(dir, "src/price.mjs"), "utf8");
    const preview = await mergePreview(gitDir, "main", "rein/change-1");
    expect(preview.head).toBe(before);
    const r = await mergeNoFf(gitDir, "main", "rein/change-1", "Merge change 1: round prices\n\nApproved by Ada", ME, before);
    expect(r.previous).toBe(before);
    expect(sh(["rev-parse", "main"])).toBe(r.commit);
    expect(sh(["rev-list", "--parents", "-n", "1", r.commit]).split(" ")).toHaveLength(3);
    expect(show("main", "src/price.mjs")).toContain("Math.round");
    expect(sh(["log", "-1", "--format=%an %s", "main"])).toBe("Rein Merge change 1: round prices");
    // The checked-out working tree was not written, and no hook ran.
    expect(fs.readFileSync(path.join(dir, "src/price.mjs"), "utf8")).toBe(worktreeText);
    expect(fs.readdirSync(dir).filter((f) => f.startsWith("HOOK-"))).toEqual([]);
    sh(["reset", "-q", "--hard", "main"]);
  });

  it("refuses when the branch moved since the checks, changing nothing", async () => {
    branchWith("rein/change-2", "README.md", "demo, documented\n");
    const head = sh(["rev-parse", "main"]);
    await expect(mergeNoFf(gitDir, "main", "rein/change-2", "Merge 2", ME, "0".repeat(40))).rejects.toMatchObject({ code: "MOVED" });
    expect(sh(["rev-parse", "main"])).toBe(head);
  });

  it("refuses a change that no longer applies, naming the files, and changes nothing", async () => {
    branchWith("rein/change-3", "src/price.mjs", "export const price = (n) => n;\n");
    write("src/price.mjs", "export const price = (n) => n * 0.8;\n");
    sh(["commit", "-q", "-am", "someone else changed the price"]);
    const head = sh(["rev-parse", "main"]);
    const err = await mergeNoFf(gitDir, "main", "rein/change-3", "Merge 3", ME).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MergeError);
    expect(err).toMatchObject({ code: "CONFLICT", conflicts: ["src/price.mjs"] });
    expect(sh(["rev-parse", "main"])).toBe(head);
  });
});

describe("reverting a merged change", () => {
  it("undoes the change in a new commit and keeps what came after it", async () => {
    branchWith("rein/change-4", "src/tax.mjs", "export const tax = 0.2;\n");
    const merged = await mergeNoFf(gitDir, "main", "rein/change-4", "Merge 4: add tax", ME);
    sh(["reset", "-q", "--hard", "main"]);
    write("README.md", "demo, with a later edit\n");
    sh(["commit", "-q", "-am", "a later edit"]);
    const r = await revertMerge(gitDir, "main", merged.commit, "Revert change 4", ME);
    expect(sh(["rev-parse", "main"])).toBe(r.commit);
    expect(sh(["ls-tree", "-r", "--name-only", "main"]).split("\n")).not.toContain("src/tax.mjs");
    expect(show("main", "README.md")).toBe("demo, with a later edit");
    expect(sh(["rev-list", "--parents", "-n", "1", "main"]).split(" ")).toHaveLength(2);
    expect(fs.readdirSync(dir).filter((f) => f.startsWith("HOOK-"))).toEqual([]);
  });
});
