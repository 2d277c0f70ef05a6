// Shell output over the token cap: the model gets the head and an id, the
// whole output is kept in the workspace (ignored by git), and read_output
// pages through it. Both through a child process and in a real terminal pod.
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { makeTempDir } from "@/test/helpers/db";
import { DEFAULT_LIMITS, PtyPod, probeSandbox } from "@/server/compute";
import { BUILTIN_TOOLS, Workspace, type ToolContext } from "./index";

const shell = BUILTIN_TOOLS.find((t) => t.name === "shell")!;
const readOutput = BUILTIN_TOOLS.find((t) => t.name === "read_output")!;
const dirs: string[] = [];
const pods: PtyPod[] = [];

afterEach(async () => {
  await Promise.all(pods.splice(0).map((p) => p.dispose()));
  dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true }));
});

async function context(withPod: boolean): Promise<ToolContext> {
  const root = makeTempDir("rein-cap-");
  dirs.push(root, `${root}.outputs`);
  const workspace = new Workspace(root);
  await workspace.ensure();
  const ctx: ToolContext = {
    runId: "r",
    workspace,
    agent: { name: "a", handoffs: [] },
    actorId: "u",
    signal: new AbortController().signal,
  };
  if (withPod) {
    const pod = await PtyPod.start({ workspaceDir: root, limits: DEFAULT_LIMITS, sandbox: "bubblewrap" });
    pods.push(pod);
    ctx.terminal = pod;
  }
  return ctx;
}

const LONG = "seq 1 60000 | sed 's/^/line number /'"; // ~1 MB, far past 25,000 tokens

describe.each([{ name: "child process", withPod: false }, ...(probeSandbox().ok ? [{ name: "terminal pod", withPod: true }] : [])])(
  "output cap ($name)",
  ({ withPod }) => {
    it("keeps short output whole and saves nothing", async () => {
      const ctx = await context(withPod);
      const out = (await shell.execute({ command: "echo short" }, ctx)) as { output: string; outputId?: string };
      expect(out.output).toBe("short\n");
      expect(out.outputId).toBeUndefined();
      expect(fs.readdirSync(ctx.workspace.outputsDir)).toEqual([]);
    });

    it("cuts long output to its head, saves the whole of it, and pages through it", async () => {
      const ctx = await context(withPod);
      const out = (await shell.execute({ command: LONG }, ctx)) as {
        exitCode: number;
        output: string;
        outputId: string;
        totalLines: number;
      };
      expect(out.exitCode).toBe(0);
      expect(out.outputId).toMatch(/^out-/);
      expect(out.totalLines).toBe(60000);
      expect(out.output.startsWith("line number 1\nline number 2\n")).toBe(true);
      expect(out.output.length).toBeLessThan(20_000);
      expect(out.output).toContain(`read_output {"id": "${out.outputId}"`);

      const page = (await readOutput.execute({ id: out.outputId, startLine: 59999, lineCount: 10 }, ctx)) as {
        content: string;
        more: boolean;
        endLine: number;
      };
      expect(page).toMatchObject({ content: "line number 59999\nline number 60000", more: false, endLine: 60000 });
      const middle = (await readOutput.execute({ id: out.outputId, startLine: 30000, lineCount: 2 }, ctx)) as {
        content: string;
        more: boolean;
      };
      expect(middle).toMatchObject({ content: "line number 30000\nline number 30001", more: true });
      await expect(readOutput.execute({ id: out.outputId, startLine: 70000 }, ctx)).rejects.toThrow(/fewer than 70000 lines/);
      await expect(readOutput.execute({ id: "out-zz-00" }, ctx)).rejects.toThrow(/No saved output/);

      // The saved output is kept beside the workspace, not in it: not part of the run's changes.
      expect(fs.readdirSync(ctx.workspace.outputsDir)).toEqual([`${out.outputId}.log`]);
      const status = execFileSync("git", ["status", "--porcelain"], { cwd: ctx.workspace.root, encoding: "utf8" });
      expect(status).toBe("");
    });
  },
);

describe("read_output arguments", () => {
  it("refuses ids that are not output ids (no path tricks)", () => {
    expect(readOutput.args.safeParse({ id: "../../etc/passwd" }).success).toBe(false);
    expect(readOutput.args.safeParse({ id: "out-abc-12ff" }).success).toBe(true);
  });
});
