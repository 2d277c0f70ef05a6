// The Files tab's service over a run workspace: tree, read, save with
// conflict detection, diff since the first commit, and the archive.
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTempDir } from "@/test/helpers/db";
import { GIT_IDENTITY, Workspace } from "./workspace";
import { MAX_TEXT_BYTES, WorkspaceFileError, WorkspaceFiles, contentHash, type FileChange, type TreeNode } from "./workspace-files";

let dir: string;
let root: string;
let files: WorkspaceFiles;

const gitEnv = { ...process.env, ...GIT_IDENTITY };
const git = (...args: string[]) => execFileSync("git", args, { cwd: root, env: gitEnv, encoding: "utf8" });

function write(rel: string, content: string | Buffer) {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), content);
}
const read = (rel: string) => fs.readFileSync(path.join(root, rel), "utf8");

async function refusal(p: Promise<unknown>): Promise<WorkspaceFileError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(WorkspaceFileError);
    return err as WorkspaceFileError;
  }
  throw new Error("expected a refusal");
}

/** Every path of a tree, folders with a trailing slash, in display order. */
function flatten(nodes: TreeNode[]): string[] {
  return nodes.flatMap((n) => (n.type === "dir" ? [`${n.path}/`, ...flatten(n.children)] : [n.path]));
}

beforeEach(async () => {
  dir = makeTempDir("rein-test-files-");
  root = path.join(dir, "workspace");
  files = new WorkspaceFiles(new Workspace(root));
});

afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("before the run starts", () => {
  it("the tree and diff say the workspace does not exist; read, save and archive refuse clearly", async () => {
    expect(await files.tree()).toEqual({ exists: false, entries: [], count: 0, truncated: false, limit: 5000 });
    expect(await files.diff()).toEqual({ exists: false, base: null, files: [], truncated: false });
    for (const p of [files.readText("a.txt"), files.save("a.txt", "hi")]) {
      const err = await refusal(p);
      expect(err.reason).toBe("NO_WORKSPACE");
      expect(err.message).toBe("The run has not started; its workspace does not exist yet");
    }
    expect(() => files.archive()).toThrow("The run has not started; its workspace does not exist yet");
    expect(fs.existsSync(root)).toBe(false);
  });
});

describe("tree", () => {
  beforeEach(async () => {
    await new Workspace(root).ensure();
  });

  it("lists folders first, then files, with sizes, and never .git", async () => {
    write("src/util/b.mjs", "export const b = 1;\n");
    write("src/a.mjs", "a");
    write("README.md", "# Hi\n");
    write("file10.txt", "");
    write("file2.txt", "");
    fs.symlinkSync("README.md", path.join(root, "link.md"));
    const tree = await files.tree();
    expect(tree).toMatchObject({ exists: true, truncated: false, count: 8 });
    expect(flatten(tree.entries)).toEqual([
      "src/",
      "src/util/",
      "src/util/b.mjs",
      "src/a.mjs",
      "file2.txt",
      "file10.txt",
      "link.md",
      "README.md",
    ]);
    const src = tree.entries[0] as Extract<TreeNode, { type: "dir" }>;
    expect(src).toMatchObject({ type: "dir", name: "src", path: "src" });
    expect(src.children[1]).toEqual({ type: "file", name: "a.mjs", path: "src/a.mjs", size: 1 });
    expect(tree.entries.find((e) => e.name === "link.md")).toMatchObject({ type: "file", symlink: true });
    expect(JSON.stringify(tree)).not.toContain(".git");
  });

  it("an empty workspace has no entries", async () => {
    expect(await files.tree()).toMatchObject({ exists: true, entries: [], count: 0, truncated: false });
  });

  it("stops at the limit with truncated set, keeping the top level whole", async () => {
    for (let i = 0; i < 5; i++) write(`deep/f${i}.txt`, "x");
    write("top1.txt", "x");
    write("top2.txt", "x");
    const tree = await files.tree(5);
    expect(tree).toMatchObject({ truncated: true, count: 5, limit: 5 });
    expect(flatten(tree.entries)).toEqual(["deep/", "deep/f0.txt", "deep/f1.txt", "top1.txt", "top2.txt"]);
  });
});

describe("readText", () => {
  beforeEach(async () => {
    await new Workspace(root).ensure();
  });

  it("returns the text with the SHA-256 of its bytes", async () => {
    write("src/a.mjs", "export const a = 'é';\n");
    const file = await files.readText("./src/../src/a.mjs");
    expect(file).toMatchObject({
      path: "src/a.mjs",
      content: "export const a = 'é';\n",
      hash: contentHash(Buffer.from("export const a = 'é';\n")),
      size: 23,
    });
    expect(file.modifiedAt).toBeInstanceOf(Date);
  });

  it("refuses a binary file", async () => {
    write("logo.png", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]));
    write("latin1.txt", Buffer.from([0x63, 0x61, 0x66, 0xe9])); // "café" in Latin-1: not UTF-8
    for (const name of ["logo.png", "latin1.txt"]) {
      const err = await refusal(files.readText(name));
      expect(err.reason).toBe("BINARY");
      expect(err.message).toBe(`${name} is a binary file; only text files open here. Download the workspace to see it.`);
    }
  });

  it("refuses a file over 2 MB, and opens one of exactly 2 MB", async () => {
    write("big.log", "x".repeat(MAX_TEXT_BYTES + 1));
    const err = await refusal(files.readText("big.log"));
    expect(err.reason).toBe("TOO_LARGE");
    expect(err.message).toBe("big.log is 2 MB; files up to 2 MB open here. Download the workspace to see it.");
    write("edge.log", "x".repeat(MAX_TEXT_BYTES));
    expect((await files.readText("edge.log")).size).toBe(MAX_TEXT_BYTES);
  });

  it("refuses paths outside the workspace, also through a symlink, and inside .git", async () => {
    fs.writeFileSync(path.join(dir, "secret.txt"), "secret");
    fs.symlinkSync(path.join(dir, "secret.txt"), path.join(root, "escape.txt"));
    fs.symlinkSync(dir, path.join(root, "up"));
    for (const [p, message] of [
      ["../secret.txt", 'Path "../secret.txt" is outside the workspace'],
      [path.join(dir, "secret.txt"), `Path "${path.join(dir, "secret.txt")}" is outside the workspace`],
      ["escape.txt", 'Path "escape.txt" leads outside the workspace'],
      ["up/secret.txt", 'Path "up/secret.txt" leads outside the workspace'],
    ]) {
      const err = await refusal(files.readText(p));
      expect(err.reason, p).toBe("OUTSIDE_WORKSPACE");
      expect(err.message).toBe(message);
    }
    const git = await refusal(files.readText(".git/config"));
    expect(git.reason).toBe("BAD_PATH");
    expect(git.message).toBe('".git/config" is inside .git, which git manages; it cannot be opened or saved here');
  });

  it("says when a file does not exist or is a folder", async () => {
    write("src/a.mjs", "a");
    expect(await refusal(files.readText("nope.txt"))).toMatchObject({
      reason: "NOT_FOUND",
      message: "nope.txt does not exist in the workspace",
    });
    expect(await refusal(files.readText("src"))).toMatchObject({ reason: "NOT_A_FILE", message: "src is a folder" });
    expect(await refusal(files.readText(""))).toMatchObject({ reason: "BAD_PATH", message: "A file path is required" });
  });
});

describe("save", () => {
  beforeEach(async () => {
    await new Workspace(root).ensure();
    write("src/a.mjs", "one\n");
  });

  it("overwrites without a hash, and with the hash it was loaded with; returns the new hash", async () => {
    expect(await files.save("src/a.mjs", "two\n")).toEqual({ path: "src/a.mjs", hash: contentHash("two\n"), bytes: 4, created: false });
    const loaded = await files.readText("src/a.mjs");
    const saved = await files.save("src/a.mjs", "three ✓\n", loaded.hash);
    expect(saved).toEqual({ path: "src/a.mjs", hash: contentHash("three ✓\n"), bytes: 10, created: false });
    expect(read("src/a.mjs")).toBe("three ✓\n");
    expect((await files.readText("src/a.mjs")).hash).toBe(saved.hash);
  });

  it("refuses a stale hash with a conflict that says so, and keeps the other change", async () => {
    const loaded = await files.readText("src/a.mjs");
    write("src/a.mjs", "the agent's version\n");
    const err = await refusal(files.save("src/a.mjs", "my version\n", loaded.hash));
    expect(err.reason).toBe("CONFLICT");
    expect(err.message).toBe(
      "src/a.mjs changed since you opened it (the agent or someone else saved it); reload to see the current version, then make your edit again",
    );
    expect(read("src/a.mjs")).toBe("the agent's version\n");

    fs.rmSync(path.join(root, "src/a.mjs"));
    const gone = await refusal(files.save("src/a.mjs", "my version\n", loaded.hash));
    expect(gone).toMatchObject({
      reason: "CONFLICT",
      message: "src/a.mjs was deleted since you opened it; reload to see the workspace as it is now",
    });
    expect(fs.existsSync(path.join(root, "src/a.mjs"))).toBe(false);
  });

  it("of two saves from the same version, the second is a conflict", async () => {
    const loaded = await files.readText("src/a.mjs");
    const results = await Promise.allSettled([
      files.save("src/a.mjs", "first\n", loaded.hash),
      files.save("src/a.mjs", "second\n", loaded.hash),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected"]);
    expect(read("src/a.mjs")).toBe("first\n");
  });

  it("creates a new file and its folders; null as the hash means it must not exist yet", async () => {
    expect(await files.save("docs/notes/new.md", "# New\n", null)).toMatchObject({ path: "docs/notes/new.md", created: true, bytes: 6 });
    expect(read("docs/notes/new.md")).toBe("# New\n");
    const err = await refusal(files.save("docs/notes/new.md", "again\n", null));
    expect(err).toMatchObject({ reason: "CONFLICT", message: "docs/notes/new.md already exists; open it to edit it" });
    expect(read("docs/notes/new.md")).toBe("# New\n");
  });

  it("writes atomically, keeps the file mode, leaves no temporary file, and writes through a symlink", async () => {
    fs.chmodSync(path.join(root, "src/a.mjs"), 0o755);
    await files.save("src/a.mjs", "#!/usr/bin/env node\n");
    expect(fs.statSync(path.join(root, "src/a.mjs")).mode & 0o777).toBe(0o755);
    fs.symlinkSync("a.mjs", path.join(root, "src/alias.mjs"));
    await files.save("src/alias.mjs", "via the link\n");
    expect(fs.lstatSync(path.join(root, "src/alias.mjs")).isSymbolicLink()).toBe(true);
    expect(read("src/a.mjs")).toBe("via the link\n");
    expect(fs.readdirSync(path.join(root, "src")).sort()).toEqual(["a.mjs", "alias.mjs"]);
  });

  it("refuses paths outside the workspace, .git, folders and too much text, writing nothing", async () => {
    expect((await refusal(files.save("../evil.txt", "x"))).reason).toBe("OUTSIDE_WORKSPACE");
    expect(fs.existsSync(path.join(dir, "evil.txt"))).toBe(false);
    expect((await refusal(files.save(".git/hooks/pre-commit", "x"))).reason).toBe("BAD_PATH");
    expect(fs.existsSync(path.join(root, ".git/hooks/pre-commit"))).toBe(false);
    expect(await refusal(files.save("src", "x"))).toMatchObject({ reason: "NOT_A_FILE", message: "src is a folder" });
    const big = await refusal(files.save("src/a.mjs", "é".repeat(MAX_TEXT_BYTES / 2 + 1)));
    expect(big).toMatchObject({ reason: "TOO_LARGE", message: "The new content of src/a.mjs is 2 MB; files up to 2 MB can be saved here" });
    expect(read("src/a.mjs")).toBe("one\n");
  });
});

describe("diff since the run started", () => {
  const byPath = (changes: FileChange[]) => Object.fromEntries(changes.map((c) => [c.path, c]));

  it("in a Rein workspace (empty first commit) everything the run wrote is added, committed or not", async () => {
    await new Workspace(root).ensure();
    write("src/fizzbuzz.mjs", "export {}\n");
    git("add", "-A");
    git("commit", "-qm", "Add fizzbuzz");
    write("notes.txt", "untracked\n");
    const diff = await files.diff();
    expect(diff.base).toBe(git("rev-list", "--max-parents=0", "HEAD").trim());
    expect(diff.files).toEqual([
      { path: "notes.txt", status: "A", binary: false, tooLarge: false, original: null, current: "untracked\n" },
      { path: "src/fizzbuzz.mjs", status: "A", binary: false, tooLarge: false, original: null, current: "export {}\n" },
    ]);
    expect(diff.truncated).toBe(false);
  });

  it("lists added, modified, deleted, renamed and untracked files after commits, with both texts; not ignored or unchanged ones", async () => {
    fs.mkdirSync(root, { recursive: true });
    git("init", "-q", "-b", "main");
    write("keep.txt", "unchanged\n");
    write("mod.txt", "before\n");
    write("del.txt", "going away\n");
    write("ren.txt", "moving\n");
    write("bin.dat", Buffer.from([1, 0, 2, 0]));
    git("add", "-A");
    git("commit", "-qm", "Base");

    write("mod.txt", "committed change\n");
    fs.rmSync(path.join(root, "del.txt"));
    fs.mkdirSync(path.join(root, "moved"));
    git("mv", "ren.txt", "moved/ren.txt");
    git("add", "-A");
    git("commit", "-qm", "Later commit");

    write("mod.txt", "committed change\nand an uncommitted one\n");
    write("bin.dat", Buffer.from([1, 0, 3, 0]));
    write("new.txt", "untracked\n");
    write("staged.txt", "staged, not committed\n");
    git("add", "staged.txt");
    write(".gitignore", "*.log\n");
    write("debug.log", "ignored\n");

    const diff = await files.diff();
    expect(diff.files.map((f) => `${f.status} ${f.oldPath ? `${f.oldPath} -> ` : ""}${f.path}`)).toEqual([
      "A .gitignore",
      "M bin.dat",
      "D del.txt",
      "M mod.txt",
      "R ren.txt -> moved/ren.txt",
      "A new.txt",
      "A staged.txt",
    ]);
    const f = byPath(diff.files);
    expect(f["mod.txt"]).toMatchObject({ original: "before\n", current: "committed change\nand an uncommitted one\n", binary: false });
    expect(f["del.txt"]).toMatchObject({ original: "going away\n", current: null });
    expect(f["moved/ren.txt"]).toMatchObject({ original: "moving\n", current: "moving\n" });
    expect(f["new.txt"]).toMatchObject({ original: null, current: "untracked\n" });
    expect(f["bin.dat"]).toMatchObject({ binary: true, original: null, current: null });
  });

  it("a change made back to the original text is no change", async () => {
    fs.mkdirSync(root, { recursive: true });
    git("init", "-q", "-b", "main");
    write("a.txt", "same\n");
    git("add", "-A");
    git("commit", "-qm", "Base");
    write("a.txt", "different\n");
    expect((await files.diff()).files.map((f) => f.path)).toEqual(["a.txt"]);
    write("a.txt", "same\n");
    expect((await files.diff()).files).toEqual([]);
  });

  it("runs no program the workspace's git config or .gitattributes names (fsmonitor, clean filters)", async () => {
    await new Workspace(root).ensure();
    write("a.txt", "a\n");
    git("add", "-A");
    git("commit", "-qm", "Add a");
    // What an agent could plant in its own repository.
    const marker = path.join(dir, "pwned");
    const hook = path.join(dir, "hook.sh");
    fs.writeFileSync(hook, `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
    git("config", "core.fsmonitor", hook);
    git("config", "filter.evil.clean", `touch ${marker}; cat`);
    write(".gitattributes", "* filter=evil\n");
    write("a.txt", "b\n");
    const diff = await files.diff();
    expect(diff.files.map((f) => f.path)).toEqual([".gitattributes", "a.txt"]);
    expect(fs.existsSync(marker)).toBe(false);
    // The trap is real: plain `git diff` springs it.
    git("diff", "--name-status", "HEAD");
    expect(fs.existsSync(marker)).toBe(true);
  });

  it("says clearly when .git was removed", async () => {
    await new Workspace(root).ensure();
    fs.rmSync(path.join(root, ".git"), { recursive: true });
    const err = await refusal(files.diff());
    expect(err.reason).toBe("NO_REPOSITORY");
    expect(err.message).toBe("The workspace has no git repository any more (.git was removed), so Rein cannot tell what changed");
  });

  it("says so when git cannot read the repository, without naming where the workspace is on the server", async () => {
    await new Workspace(root).ensure();
    fs.writeFileSync(path.join(root, ".git", "HEAD"), "garbage\n");
    fs.rmSync(path.join(root, ".git", "refs"), { recursive: true });
    const err = await refusal(files.diff());
    expect(err.reason).toBe("NO_REPOSITORY");
    expect(err.message).toMatch(/^git could not read the workspace's repository: /);
    expect(err.message).not.toContain(root);
  });

  it("does not inline a file over 2 MB; each side of a change may be up to 2 MB", async () => {
    fs.mkdirSync(root, { recursive: true });
    git("init", "-q", "-b", "main");
    const before = "a".repeat(1_500_000);
    write("log.txt", before);
    git("add", "-A");
    git("commit", "-qm", "Base");
    write("log.txt", "b".repeat(1_500_000));
    write("big.txt", "x".repeat(MAX_TEXT_BYTES + 1));
    const [big, log] = (await files.diff()).files;
    expect(big).toEqual({ path: "big.txt", status: "A", binary: false, tooLarge: true, original: null, current: null });
    expect(log).toMatchObject({ path: "log.txt", status: "M", tooLarge: false });
    expect(log.original).toBe(before);
    expect(log.current).toHaveLength(1_500_000);
  });
});

describe("archive", () => {
  async function archiveTo(file: string) {
    const out = fs.createWriteStream(file);
    await new Promise<void>((resolve, reject) => {
      const stream = files.archive();
      stream.on("error", reject);
      out.on("finish", () => resolve());
      stream.pipe(out);
    });
  }

  it("is a gzipped tar of the files without .git", async () => {
    await new Workspace(root).ensure();
    write("src/fizzbuzz.mjs", "export {}\n");
    write("README.md", "# Hi\n");
    write(".gitignore", "*.log\n");
    write("nested/.git/config", "a nested repository's git dir is left out too\n");
    git("add", "src", "README.md");
    git("commit", "-qm", "Work");
    const file = path.join(dir, "out.tar.gz");
    await archiveTo(file);
    expect([...fs.readFileSync(file).subarray(0, 2)]).toEqual([0x1f, 0x8b]);
    const names = execFileSync("tar", ["-tzf", file], { encoding: "utf8" }).trim().split("\n").sort();
    expect(names).toEqual(["./", "./.gitignore", "./README.md", "./nested/", "./src/", "./src/fizzbuzz.mjs"]);
    const out = path.join(dir, "x");
    fs.mkdirSync(out);
    execFileSync("tar", ["-xzf", file, "-C", out]);
    expect(fs.readFileSync(path.join(out, "src/fizzbuzz.mjs"), "utf8")).toBe("export {}\n");
  });

  it("of an empty workspace is a valid, empty archive", async () => {
    await new Workspace(root).ensure();
    const file = path.join(dir, "empty.tar.gz");
    await archiveTo(file);
    expect(execFileSync("tar", ["-tzf", file], { encoding: "utf8" }).trim()).toBe("./");
  });
});
