// File tools over the run's workspace (SPEC section 7).
import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";
import { z } from "zod";
import { ToolError, type ToolDefinition } from "../types";
import { globToRegExp, walkFiles } from "./glob";
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
    const file = ctx.workspace.resolve(args.path);
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (!stat) throw new ToolError("NOT_FOUND", `No such file: ${args.path}`);
    if (!stat.isFile()) throw new ToolError("NOT_A_FILE", `${args.path} is not a file`);
    if (stat.size > MAX_READ_BYTES) throw new ToolError("TOO_LARGE", `${args.path} is ${stat.size} bytes; read a line range`);
    const text = fs.readFileSync(file, "utf8");
    // split() gives a last empty element for a final newline; editors do not count it as a line.
    const pieces = text.split("\n");
    const totalLines = text.endsWith("\n") ? pieces.length - 1 : pieces.length;
    const start = args.startLine ?? 1;
    if (start > Math.max(totalLines, 1)) throw new ToolError("OUT_OF_RANGE", `${args.path} has ${totalLines} lines; startLine ${start} is past the end`);
    const content = pieces.slice(start - 1, args.endLine ?? pieces.length).join("\n");
    return { path: args.path, startLine: start, endLine: Math.min(args.endLine ?? totalLines, totalLines), totalLines, content };
  },
};

/** Writes via a temporary file and rename, so a reader never sees half a file. */
function writeAtomic(file: string, content: string) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.rein-${crypto.randomBytes(4).toString("hex")}.tmp`;
  fs.writeFileSync(tmp, content);
  fs.renameSync(tmp, file);
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
    const file = ctx.workspace.resolve(args.path);
    if (fs.statSync(file, { throwIfNoEntry: false })?.isDirectory()) throw new ToolError("IS_DIRECTORY", `${args.path} is a directory`);
    writeAtomic(file, args.content);
    return { path: args.path, bytes: Buffer.byteLength(args.content) };
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
    const file = ctx.workspace.resolve(args.path);
    if (!fs.existsSync(file)) throw new ToolError("NOT_FOUND", `No such file: ${args.path}`);
    const text = fs.readFileSync(file, "utf8");
    const count = text.split(args.oldString).length - 1;
    if (count === 0) throw new ToolError("NO_MATCH", `oldString does not occur in ${args.path}`);
    if (count > 1 && !args.replaceAll) {
      throw new ToolError("AMBIGUOUS", `oldString occurs ${count} times in ${args.path}; give more context or set replaceAll`);
    }
    writeAtomic(file, args.replaceAll ? text.split(args.oldString).join(args.newString) : text.replace(args.oldString, () => args.newString));
    return { path: args.path, replacements: args.replaceAll ? count : 1 };
  },
};

const MAX_LIST = 1000;

export const listFiles: ToolDefinition<{ pattern?: string; path?: string }> = {
  name: "list_files",
  description: "List files of the workspace matching a glob (default **/*), below an optional directory.",
  args: z.object({ pattern: z.string().min(1).optional(), path: z.string().optional() }).strict(),
  replayClass: "pure",
  persistence: "none",
  async execute(args, ctx) {
    const base = ctx.workspace.resolve(args.path ?? ".");
    const re = globToRegExp(args.pattern ?? "**/*");
    const files: string[] = [];
    let truncated = false;
    for (const rel of walkFiles(base)) {
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
    const target = ctx.workspace.resolve(args.path ?? ".");
    const rel = ctx.workspace.relative(target);
    if (SKIPPED_DIRS.includes(rel.split("/")[0])) throw new ToolError("EXCLUDED_PATH", `Path "${args.path}" is not searched (${SKIPPED_DIRS.join(", ")} never are)`);
    if (!fs.existsSync(target)) throw new ToolError("NOT_FOUND", `No such file or directory: ${args.path}`);
    return runRipgrep({
      cwd: ctx.workspace.root,
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
