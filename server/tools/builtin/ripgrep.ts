// The `search` tool's engine: ripgrep (`rg --json`) over the workspace, its
// output parsed as it streams and stopped once enough matches are in.
import type { ChildProcess } from "node:child_process";
import readline from "node:readline";
import { ToolError } from "../types";

export interface SearchMatch {
  path: string;
  line: number;
  text: string;
}

export interface RipgrepQuery {
  /** Starts rg (argv[0] is "rg") with the workspace as its working directory: in the file sandbox. */
  spawn(argv: string[]): ChildProcess;
  pattern: string;
  ignoreCase: boolean;
  glob?: string;
  /** A file or directory relative to the root; absent = the whole workspace. */
  path?: string;
  maxMatches: number;
  maxLineChars: number;
  maxFileBytes: number;
  signal?: AbortSignal;
}

/** Directories never searched: git's own files, Rein's files, installed packages. */
export const SKIPPED_DIRS = [".git", ".rein", "node_modules"];

export function ripgrepArgs(q: RipgrepQuery): string[] {
  const args = [
    "--json",
    "--no-config", // no RIPGREP_CONFIG_PATH of the host
    "--no-follow",
    "--hidden",
    "--no-ignore-parent", // the workspace's own .gitignore counts, its parents' do not
    "--no-ignore-global",
    "--sort=path",
    `--max-filesize=${q.maxFileBytes}`,
    q.ignoreCase ? "--ignore-case" : "--case-sensitive",
    `--regexp=${q.pattern}`,
  ];
  if (q.glob) args.push(`--glob=${q.glob}`);
  // After the caller's glob: the last matching glob wins, so these cannot be re-included.
  for (const dir of SKIPPED_DIRS) args.push(`--glob=!${dir}`);
  args.push("--");
  if (q.path) args.push(q.path);
  return args;
}

type RgText = { text?: string; bytes?: string };
type RgMessage =
  | { type: "begin"; data: { path: RgText } }
  | { type: "match"; data: { path: RgText; lines: RgText; line_number: number | null } }
  | { type: "end"; data: { path: RgText; binary_offset: number | null } }
  | { type: "summary" | "context"; data: unknown };

const SEARCH_TIMEOUT_MS = 30_000;

const missing = () =>
  new ToolError(
    "RIPGREP_MISSING",
    "The search tool needs ripgrep (rg), which is not installed on the Rein server; install the ripgrep package (Debian: apt-get install ripgrep)",
  );

const textOf = (t: RgText | undefined) => t?.text ?? (t?.bytes ? Buffer.from(t.bytes, "base64").toString("utf8") : "");

/** Runs rg; resolves with the matches in path order, `truncated` when there were more than maxMatches. */
export function runRipgrep(q: RipgrepQuery): Promise<{ matches: SearchMatch[]; truncated: boolean }> {
  if (q.signal?.aborted) return Promise.reject(new ToolError("ABORTED", "The search was canceled"));
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = q.spawn(["rg", ...ripgrepArgs(q)]);
    } catch (err) {
      return reject(err);
    }
    // A search that runs away is stopped: the pattern is the agent's.
    const limit = setTimeout(() => {
      if (stopped) return;
      stop();
      reject(
        new ToolError(
          "SEARCH_TIMEOUT",
          `The search took longer than ${SEARCH_TIMEOUT_MS / 1000} s and was stopped; narrow it with path or glob`,
        ),
      );
    }, SEARCH_TIMEOUT_MS);
    child.once("close", () => clearTimeout(limit));
    const matches: SearchMatch[] = [];
    // A file's matches wait for its "end": a file found to be binary part-way is dropped whole.
    let fileMatches: SearchMatch[] = [];
    let truncated = false;
    let sawOutput = false;
    let stopped = false;
    let stderr = "";

    const stop = () => {
      if (stopped) return;
      stopped = true;
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    };
    const onAbort = () => {
      stop();
      reject(new ToolError("ABORTED", "The search was canceled"));
    };
    q.signal?.addEventListener("abort", onAbort, { once: true });

    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (d: string) => {
      if (stderr.length < 4000) stderr += d;
    });
    const lines = readline.createInterface({ input: child.stdout!, crlfDelay: Infinity });
    lines.on("line", (line) => {
      if (stopped || !line) return;
      let message: RgMessage;
      try {
        message = JSON.parse(line) as RgMessage;
      } catch {
        return;
      }
      sawOutput = true;
      if (message.type === "begin") fileMatches = [];
      else if (message.type === "match") {
        // Only as many as could still be returned, and one more to know there were more.
        if (matches.length + fileMatches.length > q.maxMatches) return;
        const text = textOf(message.data.lines).replace(/\r?\n$/, "");
        fileMatches.push({
          path: textOf(message.data.path).replace(/^\.\//, ""),
          line: message.data.line_number ?? 0,
          text: text.slice(0, q.maxLineChars),
        });
      } else if (message.type === "end") {
        if (message.data.binary_offset === null) matches.push(...fileMatches);
        fileMatches = [];
        if (matches.length > q.maxMatches) {
          truncated = true;
          matches.length = q.maxMatches;
          stop();
        }
      }
    });

    child.on("error", (err: NodeJS.ErrnoException) => {
      q.signal?.removeEventListener("abort", onAbort);
      stopped = true;
      if (err.code === "ENOENT") {
        reject(missing());
      } else reject(new ToolError("SEARCH_FAILED", `ripgrep could not be started: ${err.message}`));
    });
    const parsed = new Promise<void>((done) => lines.once("close", done));
    // Answers once the last line is parsed; `parsed` never rejects.
    child.on(
      "close",
      (code: number | null) =>
        void parsed.then(() => {
          q.signal?.removeEventListener("abort", onAbort);
          if (q.signal?.aborted) return;
          if (!sawOutput && /execvp rg/.test(stderr)) return reject(missing());
          // Exit code 2 with results means some files could not be read; the rest is still an answer.
          if (code === 2 && !sawOutput && !truncated) {
            const message = stderr.trim();
            if (/regex|literal/i.test(message))
              return reject(new ToolError("BAD_PATTERN", `Invalid regular expression: ${message.replace(/\s+/g, " ")}`));
            return reject(new ToolError("SEARCH_FAILED", `ripgrep failed: ${message || `exit code ${code}`}`));
          }
          resolve({ matches, truncated });
        }),
    );
  });
}
