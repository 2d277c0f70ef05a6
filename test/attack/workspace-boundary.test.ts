// Attack suite, issue classes 1 and 2: the agent controls its workspace's
// files, symlinks and git index; nothing it does there may make the server
// read or write a host file. Every file operation (the agent's tools and the
// Files tab) runs here against a symlink that another process flips, by
// atomic renames in a loop, between a folder inside the workspace and a host
// folder holding a canary; and the diff runs over a git index that names a
// path whose parent became a symlink to the host.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_TOOLS, MemoryReplayCache, ToolRegistry, ToolRunner, Workspace, WorkspaceFiles, type ToolOutcome } from "@/server/tools";
import { makeTempDir } from "../helpers/db";

const CANARY = `host-canary-${crypto.randomBytes(8).toString("hex")}`;
/** How long each operation is raced against the flipping symlink. */
const RACE_MS = Number(process.env.REIN_ATTACK_RACE_MS) || 1500;

let base: string;
let ws: Workspace;
let host: string; // a host folder the agent must never reach
let flipper: ChildProcess | null = null;
let n = 0;

const runner = new ToolRunner(new ToolRegistry(BUILTIN_TOOLS), new MemoryReplayCache());
const ALL = BUILTIN_TOOLS.map((t) => t.name);

async function tool(toolName: string, args: unknown): Promise<ToolOutcome> {
  const r = await runner.run(
    { toolCallId: `c${n}`, toolName, args },
    { runId: "attack", nodeId: `n${n++}`, checkpointId: "cp" },
    { runId: "attack", workspace: ws, agent: { name: "attacker", handoffs: [] }, actorId: "agent", signal: new AbortController().signal },
    ALL,
  );
  return r.outcome;
}

/** Host files that are not the ones the test put there: a write that got out. */
function strays(): string[] {
  return fs.readdirSync(host).filter((f) => !["canary.txt", "edit-me.txt", "host-only.txt"].includes(f));
}

beforeAll(async () => {
  base = makeTempDir("rein-attack-ws-");
  host = path.join(base, "host");
  fs.mkdirSync(host);
  fs.writeFileSync(path.join(host, "canary.txt"), `${CANARY}\n`);
  fs.writeFileSync(path.join(host, "edit-me.txt"), `${CANARY} x\n`);
  fs.writeFileSync(path.join(host, "host-only.txt"), "a name only the host folder has\n");
  ws = new Workspace(path.join(base, "ws"));
  await ws.ensure();
  const inside = path.join(ws.root, "inside");
  fs.mkdirSync(inside);
  fs.writeFileSync(path.join(inside, "canary.txt"), "inside\n");
  fs.writeFileSync(path.join(inside, "edit-me.txt"), "inside x\n");
  // The agent's loop: `l` points inside, then at the host folder, then inside again, each by an atomic rename.
  const script = `
    const fs = require("fs");
    process.chdir(${JSON.stringify(ws.root)});
    for (;;) {
      for (const target of ["inside", ${JSON.stringify(host)}]) {
        try { fs.rmSync("l.tmp", { force: true }); fs.symlinkSync(target, "l.tmp"); fs.renameSync("l.tmp", "l"); } catch {}
      }
    }`;
  flipper = spawn(process.execPath, ["-e", script], { stdio: "ignore" });
  await new Promise((r) => setTimeout(r, 200));
});

afterAll(() => {
  flipper?.kill("SIGKILL");
  fs.rmSync(base, { recursive: true, force: true });
  fs.rmSync(`${base}/ws.outputs`, { recursive: true, force: true });
});

/** Runs `attempt` over and over for RACE_MS; returns how many tries there were. */
async function race(attempt: (i: number) => Promise<void>): Promise<number> {
  const until = Date.now() + RACE_MS;
  let i = 0;
  while (Date.now() < until) await attempt(i++);
  return i;
}

const leaked = (value: unknown) => JSON.stringify(value ?? null).includes(CANARY);

describe("a symlink flipped between the workspace and a host folder, raced against every file operation", () => {
  it("read_file never returns the host file", async () => {
    let leaks = 0;
    const tries = await race(async () => {
      const out = await tool("read_file", { path: "l/canary.txt" });
      if (leaked(out)) leaks++;
    });
    expect(tries).toBeGreaterThan(5);
    expect(leaks).toBe(0);
  });

  it("write_file never writes into the host folder", async () => {
    await race(async (i) => void (await tool("write_file", { path: `l/written-${i}.txt`, content: "agent was here" })));
    expect(strays()).toEqual([]);
  });

  it("edit_file never changes a host file", async () => {
    await race(async () => void (await tool("edit_file", { path: "l/edit-me.txt", oldString: "x", newString: "y" })));
    expect(fs.readFileSync(path.join(host, "edit-me.txt"), "utf8")).toBe(`${CANARY} x\n`);
    expect(strays()).toEqual([]);
  });

  it("list_files and search never see into the host folder", async () => {
    let leaks = 0;
    await race(async () => {
      const listed = await tool("list_files", { path: "l" });
      const found = await tool("search", { pattern: "host-canary", path: "l" });
      if (leaked(found)) leaks++;
      if (JSON.stringify(listed).includes("host-only")) leaks++;
    });
    expect(leaks).toBe(0);
  });

  it("the Files tab's tree, read, save, diff and archive never reach the host folder", async () => {
    const files = new WorkspaceFiles(ws);
    let leaks = 0;
    await race(async (i) => {
      const read = await files.readText("l/canary.txt").catch((e: Error) => e.message);
      if (leaked(read)) leaks++;
      await files.save(`l/saved-${i}.txt`, "saved by an operator").catch(() => {});
      if (leaked(await files.tree())) leaks++;
    });
    const diff = await files.diff();
    const archive: Buffer[] = [];
    for await (const chunk of files.archive()) archive.push(chunk as Buffer);
    expect(leaks).toBe(0);
    expect(leaked(diff)).toBe(false);
    expect(Buffer.concat(archive).includes(CANARY)).toBe(false);
    expect(strays()).toEqual([]);
  });
});

describe("the diff over a git index the agent controls", () => {
  it("does not read a committed path whose parent folder became a symlink to the host", async () => {
    const root = path.join(base, "ws2");
    const w = new Workspace(root);
    await w.ensure();
    fs.mkdirSync(path.join(root, "etc"));
    fs.writeFileSync(path.join(root, "etc", "canary.txt"), "committed text\n");
    execFileSync("git", ["add", "-A"], { cwd: root });
    execFileSync("git", ["-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "add"], { cwd: root });
    fs.rmSync(path.join(root, "etc"), { recursive: true });
    fs.symlinkSync(host, path.join(root, "etc"));
    const diff = await new WorkspaceFiles(w).diff();
    expect(leaked(diff)).toBe(false);
  });
});
