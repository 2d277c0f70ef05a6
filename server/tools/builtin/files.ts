// File tools over the run's workspace (docs/terminal-and-files.md#the-file-tools).
import crypto from "node:crypto";
import { z } from "zod";
import { ToolError, type ToolDefinition } from "../types";
import type { Workspace } from "../workspace";
import { globToRegExp } from "./glob";
import { contentHash } from "../workspace-text";
import { SKIPPED_DIRS, runRipgrep } from "./ripgrep";

const MAX_READ_BYTES = 2_000_000;

export const readFile: ToolDefinition<{ path: string; startLine?: number; endLine?: number }> = {
  name: "read_file",
  description: "Read a text file of the workspace, optionally only lines startLine..endLine (1-based, inclusive).",
  args: z
    .object({
      path: z.string().min(1),
      startLine: z.number().int().min(1).optional(),
      endLine: z.number().int().min(1).optional(),
    })
    .strict()
    .refine((a) => !a.startLine || !a.endLine || a.endLine >= a.startLine, { message: "endLine is before startLine" }),
  replayClass: "pure",
  persistence: "none",
  async execute(args, ctx) {
    const whole = await ctx.workspace.readFile(args.path, { maxBytes: MAX_READ_BYTES }).catch((err) => {
      if (err instanceof ToolError && err.code === "TOO_LARGE") return null;
      if (err instanceof ToolError && err.code === "IS_DIRECTORY") throw new ToolError("NOT_A_FILE", `${args.path} is not a file`);
      throw err;
    });
    const start = args.startLine ?? 1;
    const { text, totalLines } = whole
      ? linesOf(whole.data.toString("utf8"), start, args.endLine)
      : await largeFileLines(args, ctx.workspace);
    if (start > Math.max(totalLines, 1))
      throw new ToolError("OUT_OF_RANGE", `${args.path} has ${totalLines} lines; startLine ${start} is past the end`);
    return { path: args.path, startLine: start, endLine: Math.min(args.endLine ?? totalLines, totalLines), totalLines, content: text };
  },
};

function linesOf(text: string, start: number, end: number | undefined): { text: string; totalLines: number } {
  // split() gives a last empty element for a final newline; editors do not count it as a line.
  const pieces = text.split("\n");
  const totalLines = text.endsWith("\n") ? pieces.length - 1 : pieces.length;
  return { text: pieces.slice(start - 1, end ?? pieces.length).join("\n"), totalLines };
}

/** A file too large to return whole: the lines asked for, streamed by the run's file service. */
async function largeFileLines(
  args: { path: string; startLine?: number; endLine?: number },
  workspace: Workspace,
): Promise<{ text: string; totalLines: number }> {
  const limit = `${MAX_READ_BYTES / 1_000_000} MB`;
  if (args.startLine === undefined && args.endLine === undefined) {
    const size = (await workspace.stat(args.path))?.size;
    throw new ToolError(
      "TOO_LARGE",
      `${args.path} is ${size ?? "more than"} bytes, over the ${limit} read_file returns at once; give startLine and endLine to read part of it (e.g. 1 and 2000), or use search to find the lines you need`,
    );
  }
  const start = args.startLine ?? 1;
  return workspace.readLines(args.path, { start, end: args.endLine }, MAX_READ_BYTES).catch((err) => {
    if (err instanceof ToolError && err.code === "TOO_LARGE") {
      throw new ToolError(
        "TOO_LARGE",
        `Lines ${start}-${args.endLine ?? "end"} of ${args.path} are more than ${limit}; read fewer lines at a time`,
      );
    }
    throw err;
  });
}

export const writeFile: ToolDefinition<{ path: string; content: string }> = {
  name: "write_file",
  description: "Create or replace a file of the workspace with the given content (written atomically).",
  args: z.object({ path: z.string().min(1), content: z.string() }).strict(),
  // Writing the same content again leaves the same file: safe to repeat.
  replayClass: "idempotent_with_key",
  idempotencyKey: (a) => `${a.path}:${crypto.createHash("sha256").update(a.content).digest("hex")}`,
  persistence: "workspace",
  async execute(args, ctx) {
    // Written atomically by the run's file service, so a reader never sees half a file.
    const written = await ctx.workspace.writeFile(args.path, args.content).catch((err) => {
      if (err instanceof ToolError && err.code === "IS_DIRECTORY") throw new ToolError("IS_DIRECTORY", `${args.path} is a directory`);
      throw err;
    });
    return { path: args.path, bytes: written.bytes };
  },
};

export const editFile: ToolDefinition<{ path: string; oldString: string; newString: string; replaceAll?: boolean }> = {
  name: "edit_file",
  description: "Replace oldString with newString in a file. oldString must occur exactly once unless replaceAll is true.",
  args: z
    .object({ path: z.string().min(1), oldString: z.string().min(1), newString: z.string(), replaceAll: z.boolean().optional() })
    .strict(),
  // Applying a patch twice is not the same as once.
  replayClass: "unsafe_on_replay",
  persistence: "workspace",
  async execute(args, ctx) {
    const { data } = await ctx.workspace.readFile(args.path, { maxBytes: MAX_READ_BYTES });
    const text = data.toString("utf8");
    const count = text.split(args.oldString).length - 1;
    if (count === 0) throw new ToolError("NO_MATCH", `oldString does not occur in ${args.path}`);
    if (count > 1 && !args.replaceAll) {
      throw new ToolError("AMBIGUOUS", `oldString occurs ${count} times in ${args.path}; give more context or set replaceAll`);
    }
    const edited = args.replaceAll ? text.split(args.oldString).join(args.newString) : text.replace(args.oldString, () => args.newString);
    // Against the bytes read: a file changed in between is not overwritten.
    await ctx.workspace.writeFile(args.path, edited, { expectedHash: contentHash(data) }).catch((err) => {
      if (err instanceof ToolError && err.code === "CONFLICT")
        throw new ToolError("CONFLICT", `${args.path} changed while it was being edited; read it again`);
      throw err;
    });
    return { path: args.path, replacements: args.replaceAll ? count : 1 };
  },
};

const MAX_LIST = 1000;
/** Files looked at for one listing; a larger workspace is listed in part. */
const MAX_WALK = 100_000;

export const listFiles: ToolDefinition<{ pattern?: string; path?: string }> = {
  name: "list_files",
  description: "List files of the workspace matching a glob (default **/*), below an optional directory.",
  args: z.object({ pattern: z.string().min(1).optional(), path: z.string().optional() }).strict(),
  replayClass: "pure",
  persistence: "none",
  async execute(args, ctx) {
    const re = globToRegExp(args.pattern ?? "**/*");
    const files: string[] = [];
    const walked = await ctx.workspace.walk(args.path ?? ".", MAX_WALK);
    let truncated = walked.truncated;
    for (const rel of walked.files) {
      if (!re.test(rel)) continue;
      if (files.length >= MAX_LIST) {
        truncated = true;
        break;
      }
      files.push(rel);
    }
    return { files, truncated };
  },
};

const MAX_MATCHES = 200;
const MAX_LINE_CHARS = 400;

export const search: ToolDefinition<{ pattern: string; glob?: string; path?: string; ignoreCase?: boolean }> = {
  name: "search",
  description:
    "Search file contents of the workspace with ripgrep (Rust regular expression syntax); returns matching lines with their paths " +
    "(relative to the workspace) and line numbers. glob filters the files (e.g. **/*.ts); path limits the search to a file or directory. " +
    "Binary files, files the workspace's .gitignore excludes, .git and node_modules are skipped.",
  args: z
    .object({ pattern: z.string().min(1), glob: z.string().optional(), path: z.string().optional(), ignoreCase: z.boolean().optional() })
    .strict(),
  replayClass: "pure",
  persistence: "none",
  async execute(args, ctx) {
    const normal = ctx.workspace.normalize(args.path ?? ".");
    const rel = normal === "." ? "" : normal;
    if (SKIPPED_DIRS.includes(rel.split("/")[0]))
      throw new ToolError("EXCLUDED_PATH", `Path "${args.path}" is not searched (${SKIPPED_DIRS.join(", ")} never are)`);
    if (!(await ctx.workspace.stat(normal))) throw new ToolError("NOT_FOUND", `No such file or directory: ${args.path}`);
    return runRipgrep({
      // rg runs in the file sandbox: it sees only the workspace.
      spawn: (argv) => ctx.workspace.spawn(argv, { stdio: ["ignore", "pipe", "pipe"] }),
      pattern: args.pattern,
      ignoreCase: args.ignoreCase ?? false,
      glob: args.glob || undefined,
      path: rel || undefined,
      maxMatches: MAX_MATCHES,
      maxLineChars: MAX_LINE_CHARS,
      maxFileBytes: MAX_READ_BYTES,
      signal: ctx.signal,
    });
  },
};
