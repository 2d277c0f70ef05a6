// The shell tool. With a compute tier it runs in the run's sandboxed terminal
// pod (T1); without one (unit tests) as a plain child process in the workspace
// with a clean environment: no server secrets either way.
import { spawn } from "node:child_process";
import { z } from "zod";
import { ToolError, type TerminalAccess, type ToolDefinition } from "../types";
import { GIT_IDENTITY } from "../workspace";

const MAX_OUTPUT_CHARS = 100_000;
const DEFAULT_TIMEOUT_SEC = 120;

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
async function inTerminal(terminal: TerminalAccess, command: string, timeoutMs: number, signal: AbortSignal) {
  try {
    const r = await terminal.exec(command, { timeoutMs, signal });
    return { exitCode: r.exitCode, output: r.output };
  } catch (err) {
    const code = (err as { code?: string }).code ?? "TERMINAL_FAILED";
    throw new ToolError(code, (err as Error).message);
  }
}

export const shell: ToolDefinition<{ command: string; timeoutSec?: number }> = {
  name: "shell",
  description: "Run a bash command in the workspace. Returns its combined output and exit code.",
  args: z.object({ command: z.string().min(1), timeoutSec: z.number().int().min(1).max(3600).optional() }).strict(),
  replayClass: "unsafe_on_replay",
  persistence: "external",
  execute(args, ctx) {
    const timeoutMs = (args.timeoutSec ?? DEFAULT_TIMEOUT_SEC) * 1000;
    if (ctx.terminal && "unavailable" in ctx.terminal) {
      return Promise.reject(new ToolError("SANDBOX_UNAVAILABLE", `The shell cannot run: ${ctx.terminal.unavailable}`));
    }
    if (ctx.terminal) return inTerminal(ctx.terminal, args.command, timeoutMs, ctx.signal);
    if (ctx.signal.aborted) return Promise.reject(new ToolError("ABORTED", "The command was not started because the run was canceled"));
    return new Promise((resolve, reject) => {
      const child = spawn("bash", ["-c", args.command], {
        cwd: ctx.workspace.root,
        env: sandboxEnv(ctx.workspace.root) as NodeJS.ProcessEnv,
        detached: true, // own process group, so a timeout kills everything it started
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      let dropped = 0;
      const onData = (chunk: Buffer) => {
        const text = chunk.toString("utf8");
        // Keep the tail: the end of a failing command's output matters most.
        output += text;
        if (output.length > MAX_OUTPUT_CHARS) {
          dropped += output.length - MAX_OUTPUT_CHARS;
          output = output.slice(output.length - MAX_OUTPUT_CHARS);
        }
      };
      child.stdout.on("data", onData);
      child.stderr.on("data", onData);
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
        reject(new ToolError("SPAWN_FAILED", `Could not start bash: ${err.message}`));
      });
      child.on("close", (code, signal) => {
        clearTimeout(timer);
        ctx.signal.removeEventListener("abort", onAbort);
        if (ctx.signal.aborted) return reject(new ToolError("ABORTED", "The command was stopped because the run was canceled"));
        if (timedOut) return reject(new ToolError("TIMEOUT", `The command ran longer than ${timeoutMs / 1000} s and was killed`));
        resolve({
          exitCode: code ?? (signal ? 128 : 1),
          signal: signal ?? undefined,
          output: dropped > 0 ? `[${dropped} earlier characters dropped]\n${output}` : output,
        });
      });
    });
  },
};
