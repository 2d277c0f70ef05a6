// The file service's program: plain JavaScript run by Node inside the file
// sandbox (jail.ts), so it sees only the run's workspace. It answers one JSON
// request per line on stdin with one JSON line on stdout, and opens nothing
// the server did not ask for. Kept as source text (no imports, no template
// literals) so the same program runs under the tests and in the built server.
export const FILE_SERVICE_PROGRAM = String.raw`
"use strict";
const fs = require("fs");
const fsp = require("fs/promises");
const path = require("path");
const crypto = require("crypto");
const readline = require("readline");

const ROOT = process.env.REIN_FS_ROOT || "/workspace";
let realRoot = ROOT;
try { realRoot = fs.realpathSync(ROOT); } catch (e) {}

class Refusal extends Error {
  constructor(code, message, extra) { super(message); this.code = code; this.extra = extra; }
}

function lexical(rel) {
  if (typeof rel !== "string" || rel.indexOf("\0") >= 0) throw new Refusal("BAD_PATH", "Invalid path");
  const abs = path.resolve(ROOT, rel);
  if (abs !== ROOT && !abs.startsWith(ROOT + "/")) throw new Refusal("OUTSIDE_WORKSPACE", "Path \"" + rel + "\" is outside the workspace");
  return abs;
}

function within(real) {
  return real === realRoot || real.startsWith(realRoot + "/");
}

// The real location of abs, resolved one component at a time (symlinks
// followed, a missing tail kept); refused as soon as it would leave the
// workspace, dangling links included.
async function real(abs, rel) {
  const outside = () => new Refusal("OUTSIDE_WORKSPACE", "Path \"" + rel + "\" leads outside the workspace");
  const queue = path.relative(ROOT, abs).split("/").filter(Boolean);
  let cur = realRoot;
  let hops = 0;
  while (queue.length) {
    const part = queue.shift();
    if (part === ".") continue;
    if (part === "..") {
      cur = path.dirname(cur);
      if (!within(cur)) throw outside();
      continue;
    }
    const next = path.join(cur, part);
    let st;
    try { st = await fsp.lstat(next); } catch (e) {
      if (e.code === "ENOENT" || e.code === "ENOTDIR") return path.join(next, ...queue);
      throw e;
    }
    if (!st.isSymbolicLink()) { cur = next; continue; }
    if (++hops > 40) throw new Refusal("BAD_PATH", "Path \"" + rel + "\" has too many levels of symbolic links");
    const target = await fsp.readlink(next);
    if (target.startsWith("/")) {
      const normal = path.normalize(target);
      if (!within(normal)) throw outside();
      cur = realRoot;
      queue.unshift(...path.relative(realRoot, normal).split("/").filter(Boolean));
    } else {
      queue.unshift(...target.split("/").filter(Boolean));
    }
  }
  return cur;
}

function kindOf(st) {
  return st.isFile() ? "file" : st.isDirectory() ? "dir" : st.isSymbolicLink() ? "symlink" : "other";
}

function info(st) {
  return { kind: kindOf(st), size: st.size, mode: st.mode & 0o7777, mtimeMs: st.mtimeMs };
}

async function statOf(p, follow) {
  try { return follow ? await fsp.stat(p) : await fsp.lstat(p); } catch (e) {
    if (e.code === "ENOENT" || e.code === "ENOTDIR" || e.code === "ELOOP") return null;
    throw e;
  }
}

const hash = (b) => crypto.createHash("sha256").update(b).digest("hex");

const ops = {
  async stat(q) {
    const abs = lexical(q.path);
    const st = await statOf(q.follow === false ? abs : await real(abs, q.path), q.follow !== false);
    return st ? info(st) : null;
  },
  // Many paths at once, not followed: what the diff needs of the work tree.
  async lstatMany(q) {
    const out = [];
    for (const rel of q.paths) {
      const st = await statOf(lexical(rel), false);
      out.push(st ? info(st) : null);
    }
    return out;
  },
  async read(q) {
    const p = await real(lexical(q.path), q.path);
    const st = await statOf(p, true);
    if (!st) throw new Refusal("NOT_FOUND", "No such file: " + q.path);
    if (!st.isFile()) throw new Refusal(st.isDirectory() ? "IS_DIRECTORY" : "NOT_A_FILE", q.path + " is " + (st.isDirectory() ? "a folder" : "not a regular file"));
    if (q.maxBytes !== undefined && st.size > q.maxBytes) throw new Refusal("TOO_LARGE", q.path + " is " + st.size + " bytes", { size: st.size });
    const data = await fsp.readFile(p);
    return { data: data.toString("base64"), size: data.length, mode: st.mode & 0o7777, mtimeMs: st.mtimeMs };
  },
  // Lines q.start..q.end (1-based; end null: to the last) of a file of any
  // size, streamed so a large file is never held whole, and refused once the
  // lines asked for pass q.maxBytes. Lines are counted as split("\n") does.
  async readLines(q) {
    const p = await real(lexical(q.path), q.path);
    const st = await statOf(p, true);
    if (!st) throw new Refusal("NOT_FOUND", "No such file: " + q.path);
    if (!st.isFile()) throw new Refusal(st.isDirectory() ? "IS_DIRECTORY" : "NOT_A_FILE", q.path + " is " + (st.isDirectory() ? "a folder" : "not a regular file"));
    const end = q.end == null ? Infinity : q.end;
    const wanted = (n) => n >= q.start && n <= end;
    const pieces = [];
    let current = [];
    let bytes = 0;
    let line = 1;
    let last = -1;
    const tooLarge = () => new Refusal("TOO_LARGE", "Lines " + q.start + "-" + (q.end == null ? "end" : q.end) + " of " + q.path + " are more than " + q.maxBytes + " bytes", { size: st.size });
    for await (const chunk of fs.createReadStream(p, { highWaterMark: 1 << 16 })) {
      let from = 0;
      for (;;) {
        const nl = chunk.indexOf(10, from);
        const stop = nl < 0 ? chunk.length : nl;
        if (wanted(line) && stop > from) {
          bytes += stop - from;
          if (bytes > q.maxBytes) throw tooLarge();
          current.push(chunk.subarray(from, stop));
        }
        if (nl < 0) break;
        if (wanted(line)) { pieces.push(Buffer.concat(current)); bytes += 1; }
        current = [];
        line++;
        from = nl + 1;
      }
      if (chunk.length) last = chunk[chunk.length - 1];
    }
    if (wanted(line)) pieces.push(Buffer.concat(current));
    const joined = Buffer.concat(pieces.flatMap((b, i) => (i ? [Buffer.from("\n"), b] : [b])));
    return { data: joined.toString("base64"), totalLines: last === 10 ? line - 1 : line, size: st.size };
  },
  // The bytes git would store for a work-tree entry: a symlink's target, or the file's content.
  async blob(q) {
    const abs = lexical(q.path);
    const st = await statOf(abs, false);
    if (!st) return null;
    if (st.isSymbolicLink()) return { data: Buffer.from(await fsp.readlink(abs)).toString("base64") };
    if (!st.isFile()) return null;
    if (q.maxBytes !== undefined && st.size > q.maxBytes) return { tooLarge: true, size: st.size };
    const p = await real(abs, q.path);
    return { data: (await fsp.readFile(p)).toString("base64") };
  },
  async write(q) {
    const abs = lexical(q.path);
    if (abs === ROOT) throw new Refusal("NOT_A_FILE", "The workspace folder itself is not a file");
    const p = await real(abs, q.path);
    const st = await statOf(p, true);
    if (st && !st.isFile()) throw new Refusal(st.isDirectory() ? "IS_DIRECTORY" : "NOT_A_FILE", q.path + " is " + (st.isDirectory() ? "a folder" : "not a regular file"));
    if (q.expectedHash !== undefined) {
      const current = st ? hash(await fsp.readFile(p)) : null;
      if (current !== q.expectedHash) throw new Refusal("CONFLICT", q.path + " changed", { current: current });
    }
    const bytes = Buffer.from(q.data, "base64");
    await fsp.mkdir(path.dirname(p), { recursive: true });
    const tmp = path.join(path.dirname(p), "." + path.basename(p) + ".rein-" + crypto.randomBytes(4).toString("hex") + ".tmp");
    try {
      await fsp.writeFile(tmp, bytes, { mode: st ? st.mode & 0o777 : q.mode || 0o644, flag: "wx" });
      await fsp.rename(tmp, p);
    } catch (e) {
      await fsp.rm(tmp, { force: true });
      throw e;
    }
    return { created: !st, hash: hash(bytes), bytes: bytes.length };
  },
  // Adds a line to a file unless it is there (git's info/exclude).
  async ensureLine(q) {
    const p = await real(lexical(q.path), q.path);
    await fsp.mkdir(path.dirname(p), { recursive: true });
    let current = "";
    try { current = await fsp.readFile(p, "utf8"); } catch (e) { if (e.code !== "ENOENT") throw e; }
    if (current.split("\n").indexOf(q.line) >= 0) return { added: false };
    await fsp.appendFile(p, (current && !current.endsWith("\n") ? "\n" : "") + q.line + "\n");
    return { added: true };
  },
  // Files and folders, breadth first (a cut keeps the top levels whole), without .git and the top .rein.
  async tree(q) {
    const limit = q.limit;
    const entries = [];
    const queue = [{ abs: ROOT, rel: "", children: entries }];
    let count = 0;
    let truncated = false;
    for (let i = 0; i < queue.length && !truncated; i++) {
      const dir = queue[i];
      let dirents;
      try { dirents = await fsp.readdir(dir.abs, { withFileTypes: true }); } catch (e) { continue; }
      dirents = dirents
        .filter((d) => d.name !== ".git" && !(dir.rel === "" && d.name === ".rein"))
        .sort((a, b) => Number(b.isDirectory()) - Number(a.isDirectory()) || a.name.localeCompare(b.name, "en", { numeric: true }));
      if (count + dirents.length > limit) {
        truncated = true;
        dirents = dirents.slice(0, limit - count);
      }
      count += dirents.length;
      const sizes = await Promise.all(dirents.map((d) => (d.isDirectory() ? null : statOf(path.join(dir.abs, d.name), false))));
      dirents.forEach((d, j) => {
        const abs = path.join(dir.abs, d.name);
        const rel = dir.rel ? dir.rel + "/" + d.name : d.name;
        if (d.isDirectory()) {
          const node = { type: "dir", name: d.name, path: rel, children: [] };
          queue.push({ abs: abs, rel: rel, children: node.children });
          dir.children.push(node);
        } else {
          const node = { type: "file", name: d.name, path: rel, size: sizes[j] ? sizes[j].size : 0 };
          if (d.isSymbolicLink()) node.symlink = true;
          dir.children.push(node);
        }
      });
    }
    return { entries: entries, count: count, truncated: truncated };
  },
  // Regular files below a folder (paths relative to it, sorted), skipping .git and node_modules; symlinks not followed.
  async walk(q) {
    const base = await real(lexical(q.path || "."), q.path || ".");
    const files = [];
    let truncated = false;
    async function visit(dir, prefix) {
      let list;
      try { list = await fsp.readdir(dir, { withFileTypes: true }); } catch (e) { return; }
      list.sort((a, b) => (a.name < b.name ? -1 : 1));
      for (const e of list) {
        if (truncated) return;
        if (e.name === ".git" || e.name === "node_modules") continue;
        const rel = prefix ? prefix + "/" + e.name : e.name;
        if (e.isDirectory()) await visit(path.join(dir, e.name), rel);
        else if (e.isFile()) {
          if (files.length >= q.limit) { truncated = true; return; }
          files.push(rel);
        }
      }
    }
    await visit(base, "");
    return { files: files, truncated: truncated };
  },
  async mkdir(q) {
    await fsp.mkdir(await real(lexical(q.path), q.path), { recursive: true });
    return {};
  },
  async remove(q) {
    const abs = lexical(q.path);
    if (abs === ROOT) throw new Refusal("BAD_PATH", "The workspace itself cannot be removed");
    await fsp.rm(abs, { recursive: !!q.recursive, force: true });
    return {};
  },
};

const MUTATING = { write: true, ensureLine: true, mkdir: true, remove: true };
let writes = Promise.resolve();

function answer(obj) {
  process.stdout.write(JSON.stringify(obj) + "\n");
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  let q;
  try { q = JSON.parse(line); } catch (e) { return answer({ id: null, error: { code: "BAD_REQUEST", message: "Not JSON" } }); }
  const op = Object.prototype.hasOwnProperty.call(ops, q.op) ? ops[q.op] : null;
  if (!op) return answer({ id: q.id, error: { code: "BAD_REQUEST", message: "Unknown operation " + q.op } });
  // Writes happen one after another, so a save's check against the hash it expects and its rename are not interleaved with another write.
  const run = MUTATING[q.op] ? (writes = writes.then(() => op(q), () => op(q))) : op(q);
  run.then(
    (result) => answer({ id: q.id, result: result }),
    (e) => answer({ id: q.id, error: e instanceof Refusal ? { code: e.code, message: e.message, extra: e.extra } : { code: e.code === "ENOSPC" ? "NO_SPACE" : "IO_ERROR", message: String(e.message || e).split(ROOT).join("") } }),
  );
});
lines.on("close", () => process.exit(0));
`;
