// The shell tool. With a compute tier it runs in the run's sandboxed terminal
// pod (T1); without one (unit tests) as a plain child process in the workspace
// with a clean environment: no server secrets either way. The run's own secrets
// reach the command as variables (docs/secrets.md#how-a-tool-gets-the-value),
// never as text it was given, and their values are redacted from what it
// prints.
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { z } from "zod";
import { countTokens } from "@/server/models";
import { StreamRedactor } from "@/server/secrets";
import { ToolError, type TerminalAccess, type ToolContext, type ToolDefinition } from "../types";
import { GIT_IDENTITY, type Workspace } from "../workspace";

const MAX_OUTPUT_CHARS = 100_000;
/** Output past this many tokens is cut for the model (docs/terminal-and-files.md#long-output, default 25,000). */
export const OUTPUT_TOKEN_CAP = 25_000;
const HEAD_CHARS = 16_000;
const DEFAULT_TIMEOUT_SEC = 120;
/** Past timeoutSec, time to kill the command and read, cap and redact its output before the runner gives up. */
const RESULT_MARGIN_MS = 30_000;

/** Only what a shell needs; nothing of the server's own environment leaks in. */
function sandboxEnv(home: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: home,
    LANG: "C.UTF-8",
    TERM: "xterm-256color",
    ...GIT_IDENTITY,
  };
}

/** In the run's terminal pod: the watcher sees the command and its output live. */
async function inTerminal(
  terminal: TerminalAccess,
  command: string,
  timeoutMs: number,
  signal: AbortSignal,
  spillPath: string,
  env: Record<string, string>,
): Promise<ShellResult> {
  try {
    // The pod writes the variables to a file only the sandbox sees and redacts their values from the terminal.
    const r = await terminal.exec(command, { timeoutMs, signal, spillPath, ...(Object.keys(env).length ? { env } : {}) });
    return { exitCode: r.exitCode, output: r.output };
  } catch (err) {
    const code = (err as { code?: string }).code ?? "TERMINAL_FAILED";
    throw new ToolError(code, (err as Error).message);
  }
}

interface ShellResult {
  exitCode: number;
  signal?: string;
  output: string;
}

/** Without a compute tier: a child process in its own process group. */
function inChildProcess(
  command: string,
  timeoutMs: number,
  ctx: ToolContext,
  spillPath: string,
  env: Record<string, string>,
): Promise<ShellResult> {
  if (ctx.signal.aborted) return Promise.reject(new ToolError("ABORTED", "The command was not started because the run was canceled"));
  return new Promise((resolve, reject) => {
    const spill = fs.createWriteStream(spillPath);
    // Values are redacted before they reach the spill file.
    const redaction = new StreamRedactor(Object.entries(env).map(([name, value]) => ({ name, value })));
    const child = spawn("bash", ["-c", command], {
      cwd: ctx.workspace.root,
      env: { ...sandboxEnv(ctx.workspace.root), ...env } as NodeJS.ProcessEnv,
      detached: true, // own process group, so a timeout kills everything it started
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    let dropped = 0;
    const onText = (text: string) => {
      spill.write(text);
      // Keep the tail in memory: the end of a failing command's output matters most.
      output += text;
      if (output.length > MAX_OUTPUT_CHARS) {
        dropped += output.length - MAX_OUTPUT_CHARS;
        output = output.slice(output.length - MAX_OUTPUT_CHARS);
      }
    };
    const decoders = [new TextDecoder(), new TextDecoder()];
    child.stdout.on("data", (chunk: Buffer) => onText(redaction.push(decoders[0].decode(chunk, { stream: true }))));
    child.stderr.on("data", (chunk: Buffer) => onText(redaction.push(decoders[1].decode(chunk, { stream: true }))));
    let timedOut = false;
    const killGroup = () => {
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        /* already exited */
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    const onAbort = () => killGroup();
    ctx.signal.addEventListener("abort", onAbort, { once: true });
    child.on("error", (err) => {
      clearTimeout(timer);
      spill.end();
      reject(new ToolError("SPAWN_FAILED", `Could not start bash: ${err.message}`));
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      ctx.signal.removeEventListener("abort", onAbort);
      onText(redaction.push(decoders.map((d) => d.decode()).join("")) + redaction.flush());
      spill.end(() => {
        if (ctx.signal.aborted) return reject(new ToolError("ABORTED", "The command was stopped because the run was canceled"));
        if (timedOut) return reject(new ToolError("TIMEOUT", `The command ran longer than ${timeoutMs / 1000} s and was killed`));
        resolve({
          exitCode: code ?? (signal ? 128 : 1),
          signal: signal ?? undefined,
          output: dropped > 0 ? `[${dropped} earlier characters dropped]\n${output}` : output,
        });
      });
    });
  });
}

/**
 * Output over the cap goes to the model as its head plus an id; the whole
 * output stays in a file that read_output pages through
 * (docs/terminal-and-files.md#long-output).
 */
async function capped(result: ShellResult, spillPath: string, id: string) {
  const size = fs.statSync(spillPath, { throwIfNoEntry: false })?.size ?? 0;
  const fits = size <= OUTPUT_TOKEN_CAP || (size <= MAX_OUTPUT_CHARS && countTokens(result.output) <= OUTPUT_TOKEN_CAP);
  if (fits) {
    fs.rmSync(spillPath, { force: true });
    return result;
  }
  const head = await readHead(spillPath, HEAD_CHARS);
  const totalLines = await countLines(spillPath);
  return {
    exitCode: result.exitCode,
    ...(result.signal ? { signal: result.signal } : {}),
    output: `${head}\n[output continues: ${size} characters, ${totalLines} lines in all, over the ${OUTPUT_TOKEN_CAP}-token cap; read the rest with read_output {"id": "${id}", "startLine": N}]`,
    outputId: id,
    totalLines,
    totalChars: size,
  };
}

async function readHead(file: string, chars: number): Promise<string> {
  const fd = await fs.promises.open(file, "r");
  try {
    const buf = Buffer.alloc(chars);
    const { bytesRead } = await fd.read(buf, 0, chars, 0);
    const text = buf.subarray(0, bytesRead).toString("utf8");
    const lastNewline = text.lastIndexOf("\n");
    return lastNewline > 0 ? text.slice(0, lastNewline) : text;
  } finally {
    await fd.close();
  }
}

async function countLines(file: string): Promise<number> {
  let lines = 0;
  let last = 10;
  for await (const chunk of fs.createReadStream(file)) {
    for (const byte of chunk as Buffer) if (byte === 10) lines++;
    last = (chunk as Buffer)[(chunk as Buffer).length - 1] ?? last;
  }
  return last === 10 ? lines : lines + 1;
}

export const shell: ToolDefinition<{ command: string; timeoutSec?: number }> = {
  name: "shell",
  description:
    "Run a bash command in the workspace. Returns its combined output and exit code. Output over the cap is cut to its head; read_output pages through the rest.",
  args: z.object({ command: z.string().min(1), timeoutSec: z.number().int().min(1).max(3600).optional() }).strict(),
  replayClass: "unsafe_on_replay",
  persistence: "external",
  // timeoutSec is the one limit: the command is killed at it, and the runner waits that long plus the margin.
  timeoutFor: (args) => (args.timeoutSec ?? DEFAULT_TIMEOUT_SEC) * 1000 + RESULT_MARGIN_MS,
  async execute(args, ctx) {
    const timeoutMs = (args.timeoutSec ?? DEFAULT_TIMEOUT_SEC) * 1000;
    if (ctx.terminal && "unavailable" in ctx.terminal) {
      throw new ToolError("SANDBOX_UNAVAILABLE", `The shell cannot run: ${ctx.terminal.unavailable}`);
    }
    const env = await secretEnv(ctx);
    const id = `out-${Date.now().toString(36)}-${crypto.randomBytes(3).toString("hex")}`;
    const spillPath = outputPath(ctx.workspace, id);
    fs.mkdirSync(path.dirname(spillPath), { recursive: true });
    try {
      const result = ctx.terminal
        ? await inTerminal(ctx.terminal, args.command, timeoutMs, ctx.signal, spillPath, env)
        : await inChildProcess(args.command, timeoutMs, ctx, spillPath, env);
      return await capped(result, spillPath, id);
    } catch (err) {
      fs.rmSync(spillPath, { force: true });
      throw err;
    }
  },
};

/** The run's secrets as variables; a secret deleted since the run was launched stops the command before it starts. */
async function secretEnv(ctx: ToolContext): Promise<Record<string, string>> {
  if (!ctx.secretEnv) return {};
  try {
    return await ctx.secretEnv();
  } catch (err) {
    throw new ToolError("SECRET_UNAVAILABLE", (err as Error).message);
  }
}

/**
 * Where a command's whole output is kept: beside the workspace, not in it, so
 * the server never writes through a folder the agent could have replaced
 * with a symlink.
 */
export function outputPath(workspace: Workspace, id: string): string {
  return path.join(workspace.outputsDir, `${id}.log`);
}

export const readOutput: ToolDefinition<{ id: string; startLine?: number; lineCount?: number }> = {
  name: "read_output",
  description: "Read lines of a long shell output that was cut (its id is in the shell result), from startLine (1-based).",
  args: z
    .object({
      id: z.string().regex(/^out-[a-z0-9]+-[a-f0-9]+$/, "id is the outputId a shell result gave"),
      startLine: z.number().int().min(1).optional(),
      lineCount: z.number().int().min(1).max(2000).optional(),
    })
    .strict(),
  replayClass: "pure",
  persistence: "none",
  async execute(args, ctx) {
    const file = outputPath(ctx.workspace, args.id);
    if (!fs.existsSync(file)) throw new ToolError("NOT_FOUND", `No saved output ${args.id}`);
    const start = args.startLine ?? 1;
    const count = args.lineCount ?? 400;
    const lines: string[] = [];
    let n = 0;
    let more = false;
    const rl = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
    for await (const line of rl) {
      n++;
      if (n < start) continue;
      if (lines.length >= count) {
        more = true;
        break;
      }
      lines.push(line);
    }
    rl.close();
    if (start > 1 && lines.length === 0) throw new ToolError("OUT_OF_RANGE", `Output ${args.id} has fewer than ${start} lines`);
    return { id: args.id, startLine: start, endLine: start + lines.length - 1, content: lines.join("\n"), more };
  },
};
