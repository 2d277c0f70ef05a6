// A run's workspace on a remote machine (docs/desktops-and-tiers.md#workspace-sync):
// pushed over SFTP into a per-run folder on the host (~/rein-runs/<run>/workspace,
// 0700) and pulled back. Rein never opens a path of the workspace itself: on
// push, tar reads it in the file sandbox (a symlink stays a symlink, nothing
// outside is there to read); on pull, tar reads it on the machine in a
// bubblewrap sandbox that sees only the run's workspace (or, on a machine
// without bubblewrap, Rein walks it over SFTP), and tar writes it here in the
// file sandbox, into a fresh folder that replaces the workspace only once it
// is whole. Both ways, every name and symlink is checked here, the totals are
// bounded, and a pull is bounded in time.
import fs from "node:fs";
import { once } from "node:events";
import { Readable, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ChildProcess } from "node:child_process";
import type { Attributes, FileEntryWithStats, SFTPWrapper } from "ssh2";
import { fileServices, shellQuote, spawnInJail } from "@/server/compute";
import type { RemoteConfinement } from "./remote-pod";
import type { MachineConnection } from "./ssh";
import { TAR_END, TarFormatError, readTar, tarHeader, tarPadding, type TarEntry, type TarKind } from "./tar";

export interface SyncLimits {
  /** Bytes of file content, all files together. */
  maxBytes: number;
  /** Files, folders and symlinks together. */
  maxEntries: number;
}

export const DEFAULT_SYNC_LIMITS: SyncLimits = { maxBytes: 2048 * 1024 * 1024, maxEntries: 100_000 };
/** A pull's time limit. */
export const DEFAULT_PULL_TIMEOUT_MS = 5 * 60_000;
/** A push's time limit, from making the run's folder to the last file written. */
export const DEFAULT_PUSH_TIMEOUT_MS = 5 * 60_000;

export interface SyncReport {
  direction: "push" | "pull";
  files: number;
  dirs: number;
  symlinks: number;
  bytes: number;
  ms: number;
  /** Entries left out, with why: a symlink leading out of the workspace, a special file, a bad name. */
  skipped: Array<{ path: string; why: string }>;
}

export class SyncError extends Error {
  constructor(
    readonly code: "SYNC_LIMIT" | "SYNC_FAILED",
    message: string,
  ) {
    super(message);
    this.name = "SyncError";
  }
}

const RUN_ID = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_PATH_BYTES = 4096;
const MAX_NAME_BYTES = 255;
const MAX_DEPTH = 64;
const MAX_SKIPPED_LISTED = 100;

/** The run's folder on the host, relative to the user's home (where SFTP and exec start). */
export function runFolder(runId: string): string {
  if (!RUN_ID.test(runId)) throw new SyncError("SYNC_FAILED", "Not a run id");
  return `rein-runs/${runId}`;
}

/** A relative path of the workspace, or why it is not one. */
export function pathProblem(rel: string): string | null {
  if (!rel || rel.includes("\0")) return "an empty or invalid name";
  // Bytes that are not UTF-8 read as U+FFFD, so two names could become one: a folder
  // listed under a name that is then opened as a symlink, a symlink written through.
  if (rel.includes("\uFFFD")) return "a name that is not UTF-8";
  if (Buffer.byteLength(rel) > MAX_PATH_BYTES) return "a path longer than 4096 bytes";
  if (rel.startsWith("/")) return "an absolute path";
  const parts = rel.split("/");
  if (parts.length > MAX_DEPTH) return "folders nested deeper than 64";
  for (const part of parts) {
    if (part === "" || part === "." || part === "..") return "a path with an empty, . or .. part";
    if (Buffer.byteLength(part) > MAX_NAME_BYTES) return "a name longer than 255 bytes";
  }
  return null;
}

/**
 * Does a symlink at `rel` pointing at `target` stay inside the workspace? Relative
 * targets only, whose `..` parts all come first and climb no higher than the
 * symlink's own folders (real folders: nothing is listed under a symlink). A `..`
 * after a name is refused: the name may be a symlink, and `a/l/..` is then not
 * `a` (`a/l -> ..` makes `a/l/../..` the workspace's parent).
 */
export function symlinkInside(rel: string, target: string): boolean {
  if (!target || target.includes("\0") || target.startsWith("/") || Buffer.byteLength(target) > MAX_PATH_BYTES) return false;
  const parts = target.split("/").filter((p) => p !== "" && p !== ".");
  let up = 0;
  for (const [i, part] of parts.entries()) {
    if (part !== "..") continue;
    if (i !== up) return false;
    up++;
  }
  return up <= rel.split("/").length - 1;
}

const call = <T>(fn: (cb: (err: Error | undefined | null, value: T) => void) => void) =>
  new Promise<T>((resolve, reject) => fn((err, value) => (err ? reject(err) : resolve(value))));

/** One write request's bytes at most: SFTP servers take 32 KiB writes at least. */
const WRITE_CHUNK = 32 * 1024;

/**
 * A new file on the machine ("wx": O_EXCL, which follows no symlink) with the bytes as they come, each write
 * awaited, then closed. Not the SFTP client's write stream: one that ends before its file is open (an empty
 * file, a busy machine) could wait for good, and with it the run's move to the machine.
 */
async function writeNewFile(sftp: SFTPWrapper, at: string, mode: number, body: AsyncIterable<Buffer>): Promise<void> {
  const handle = await call<Buffer>((cb) => sftp.open(at, "wx", { mode }, cb));
  let failed: unknown = null;
  try {
    let position = 0;
    for await (const chunk of body) {
      for (let offset = 0; offset < chunk.length; offset += WRITE_CHUNK) {
        const length = Math.min(WRITE_CHUNK, chunk.length - offset);
        await call<void>((cb) => sftp.write(handle, chunk, offset, length, position, (err) => cb(err, undefined)));
        position += length;
      }
    }
  } catch (err) {
    failed = err;
  }
  await call<void>((cb) => sftp.close(handle, (err) => cb(err, undefined))).catch((err: unknown) => (failed ??= err));
  if (failed) throw failed;
}

class Tally {
  readonly report: SyncReport;
  private readonly started = Date.now();
  constructor(
    direction: "push" | "pull",
    private readonly limits: SyncLimits,
  ) {
    this.report = { direction, files: 0, dirs: 0, symlinks: 0, bytes: 0, ms: 0, skipped: [] };
  }
  /** Names left out: counted toward the entries bound like the rest (a listing without end ends). */
  private left = 0;
  entry(kind: "files" | "dirs" | "symlinks", bytes = 0) {
    const r = this.report;
    r[kind]++;
    r.bytes += bytes;
    this.check();
  }
  skip(rel: string, why: string) {
    this.left++;
    if (this.report.skipped.length < MAX_SKIPPED_LISTED) this.report.skipped.push({ path: rel.slice(0, 300), why });
    this.check();
  }
  private check() {
    const r = this.report;
    if (r.files + r.dirs + r.symlinks + this.left > this.limits.maxEntries)
      throw new SyncError("SYNC_LIMIT", `The workspace has more than ${this.limits.maxEntries} files and folders`);
    if (r.bytes > this.limits.maxBytes)
      throw new SyncError("SYNC_LIMIT", `The workspace holds more than ${Math.floor(this.limits.maxBytes / 1024 / 1024)} MiB`);
  }
  done(): SyncReport {
    this.report.ms = Date.now() - this.started;
    return this.report;
  }
}

function killGroup(child: ChildProcess) {
  try {
    process.kill(-child.pid!, "SIGKILL");
  } catch {
    child.kill("SIGKILL");
  }
}

function failure(err: unknown, doing: string): Error {
  if (err instanceof SyncError) return err;
  if (err instanceof TarFormatError) return new SyncError("SYNC_FAILED", `${doing} failed: ${err.message}`);
  if (err instanceof Error && err.name === "MachineConnectError") return err;
  return new SyncError("SYNC_FAILED", `${doing} failed: ${err instanceof Error ? err.message.slice(0, 200) : "unknown error"}`);
}

/** Makes ~/rein-runs/<run>/workspace empty, each folder 0700. */
async function freshRemoteFolder(conn: MachineConnection, runId: string, signal: AbortSignal): Promise<string> {
  const base = runFolder(runId);
  // Rein's own names (a checked run id): safe to type.
  const r = await conn.exec(
    `umask 077 && mkdir -p rein-runs/${runId} && chmod 700 rein-runs rein-runs/${runId} && rm -rf -- ${base}/workspace && mkdir ${base}/workspace`,
    { maxOutputBytes: 4096, signal },
  );
  if (r.code !== 0) throw new SyncError("SYNC_FAILED", `Could not make the run's folder on the machine: ${r.stderr.trim().slice(0, 300)}`);
  return `${base}/workspace`;
}

/** Removes the run's folder on the host (the run is over and its workspace is back). */
export async function removeRunFolder(conn: MachineConnection, runId: string): Promise<void> {
  const r = await conn.exec(`rm -rf -- ${runFolder(runId)}`, { maxOutputBytes: 4096, signal: AbortSignal.timeout(60_000) });
  if (r.code !== 0)
    throw new SyncError("SYNC_FAILED", `Could not remove the run's folder on the machine: ${r.stderr.trim().slice(0, 300)}`);
}

/**
 * Copies the workspace into the run's folder on the machine, replacing what
 * was there. Symlinks are copied as symlinks when they stay inside the
 * workspace, and left out (listed in `skipped`) when they lead out of it.
 */
export async function pushWorkspace(
  conn: MachineConnection,
  workspaceDir: string,
  runId: string,
  opts: { limits?: SyncLimits; sftp?: SFTPWrapper; signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<SyncReport> {
  const tally = new Tally("push", opts.limits ?? DEFAULT_SYNC_LIMITS);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_PUSH_TIMEOUT_MS;
  const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(opts.signal ? [opts.signal] : [])]);
  // What the push holds, for the time limit to let go of.
  const held: { sftp: SFTPWrapper | null; child: ChildProcess | null } = { sftp: null, child: null };
  const release = () => {
    if (held.child) killGroup(held.child);
    if (held.sftp && !opts.sftp) held.sftp.end();
  };
  const work = async () => {
    const remote = await freshRemoteFolder(conn, runId, signal);
    signal.throwIfAborted();
    held.sftp = opts.sftp ?? (await conn.sftp());
    signal.throwIfAborted();
    const sftp = held.sftp;
    const local = readWorkspace(workspaceDir);
    held.child = local.child;
    const child = local.child;
    await readTar(child.stdout! as AsyncIterable<Buffer>, async (entry, body) => {
      signal.throwIfAborted();
      const rel = entry.path.replace(/^\.\//, "").replace(/\/+$/, "");
      if (rel === "" || rel === ".") return;
      const problem = pathProblem(rel);
      if (problem) return tally.skip(rel, problem);
      const at = `${remote}/${rel}`;
      if (entry.kind === "dir") {
        tally.entry("dirs");
        await call<void>((cb) => sftp.mkdir(at, { mode: (entry.mode & 0o777) | 0o700 }, (err) => cb(err, undefined)));
      } else if (entry.kind === "symlink") {
        if (!symlinkInside(rel, entry.target)) return tally.skip(rel, "a symlink leading out of the workspace");
        tally.entry("symlinks");
        await call<void>((cb) => sftp.symlink(entry.target, at, (err) => cb(err, undefined)));
      } else if (entry.kind === "file") {
        tally.entry("files", entry.size);
        // A new file only ("wx": O_EXCL, which follows no symlink): the folder was empty, so a name
        // already there is one the archive named twice, and what stands there is not written through.
        await writeNewFile(sftp, at, (entry.mode & 0o777) | 0o600, body);
      } else tally.skip(rel, "not a file, folder or symlink");
    });
    const code = await local.closed;
    // tar exits 1 when a file changed while it was read (the agent may be working): the archive is still whole.
    if (code !== 0 && code !== 1) throw new SyncError("SYNC_FAILED", `Reading the workspace failed: ${local.stderr().trim().slice(-300)}`);
  };
  try {
    await withinLimit(work(), signal, () =>
      opts.signal?.aborted
        ? "Copying the workspace to the machine was stopped"
        : `The workspace was not copied to the machine within ${Math.round(timeoutMs / 100) / 10} s`,
    );
  } catch (err) {
    release();
    throw failure(err, "Copying the workspace to the machine");
  } finally {
    if (held.sftp && !opts.sftp) held.sftp.end();
  }
  return tally.done();
}

/** The local tar that reads a workspace for a push: in the file sandbox, symlinks as symlinks. */
function readWorkspace(workspaceDir: string): { child: ChildProcess; closed: Promise<number | null>; stderr: () => string } {
  const child = spawnInJail(
    workspaceDir,
    [
      "tar",
      "-c",
      "-f",
      "-",
      "--format=pax",
      "--hard-dereference",
      "--numeric-owner",
      "--ignore-failed-read",
      "--warning=no-file-changed",
      "--warning=no-file-removed",
      ".",
    ],
    { stdio: ["ignore", "pipe", "pipe"], env: { LC_ALL: "C" } },
  );
  let stderr = "";
  child.stderr!.on("data", (c: Buffer) => (stderr = (stderr + c.toString("utf8")).slice(-2000)));
  const closed = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return { child, closed, stderr: () => stderr };
}

/**
 * Makes the machine's copy of the workspace what the run's workspace holds,
 * in place: the folder on the machine stays (the run's shell there keeps its
 * working directory, and its sandbox its view of the folder); what is in it
 * is removed and the archive extracted there by a tar on the machine. With
 * bubblewrap there, that tar runs in a sandbox that sees only the folder, so
 * a symlink the run left or swaps in leads nowhere else; without, it runs as
 * the machine's user, who can write there anyway. Every entry is checked
 * here first, the totals bounded, the whole bounded in time. Used before a
 * command when the run's file tools changed the workspace since the last
 * copy (docs/desktops-and-tiers.md#a-run-on-a-machine).
 */
export async function pushInPlace(
  conn: MachineConnection,
  workspaceDir: string,
  runId: string,
  opts: { confinement: RemoteConfinement; limits?: SyncLimits; signal?: AbortSignal; timeoutMs?: number },
): Promise<SyncReport> {
  const tally = new Tally("push", opts.limits ?? DEFAULT_SYNC_LIMITS);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_PUSH_TIMEOUT_MS;
  const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(opts.signal ? [opts.signal] : [])]);
  const held: { child: ChildProcess | null; closeRemote: (() => void) | null } = { child: null, closeRemote: null };
  const extract = ["sh", "-c", "find . -mindepth 1 -delete && exec tar -x -f - --no-same-owner --delay-directory-restore"];
  const command =
    opts.confinement === "bubblewrap"
      ? inWorkspaceSandbox(runId, "--bind", extract)
      : `cd ${runFolder(runId)} && test -d workspace && test ! -L workspace && cd workspace && exec ${extract.map(shellQuote).join(" ")}`;
  const work = async () => {
    const remote = await conn.execStream(command, { maxOutputBytes: 4096 });
    held.closeRemote = remote.close;
    if (signal.aborted) remote.close();
    remote.stdin.on("error", () => undefined); // a tar that stopped says why by its exit
    void (async () => {
      for await (const part of remote.stdout) void part;
    })().catch(() => undefined);
    const local = readWorkspace(workspaceDir);
    held.child = local.child;
    await readTar(local.child.stdout! as AsyncIterable<Buffer>, entryCopier(tally, remote.stdin, remote.done));
    await put(remote.stdin, TAR_END, remote.done);
    remote.stdin.end();
    const code = await local.closed;
    // tar exits 1 when a file changed while it was read (the agent may be working): the archive is still whole.
    if (code !== 0 && code !== 1) throw new SyncError("SYNC_FAILED", `Reading the workspace failed: ${local.stderr().trim().slice(-300)}`);
    const status = await remote.done;
    if (status.code !== 0)
      throw new SyncError(
        "SYNC_FAILED",
        `Writing the workspace on the machine failed: ${status.stderr.trim().slice(-300) || `exit ${status.code ?? status.signal ?? "unknown"}`}`,
      );
  };
  try {
    await withinLimit(work(), signal, () =>
      opts.signal?.aborted
        ? "Copying the workspace to the machine was stopped"
        : `The workspace was not copied to the machine within ${Math.round(timeoutMs / 100) / 10} s`,
    );
  } catch (err) {
    held.closeRemote?.();
    if (held.child) killGroup(held.child);
    throw failure(err, "Copying the workspace to the machine");
  }
  return tally.done();
}

/**
 * The work's result, or a SYNC_FAILED with `words` as soon as the signal
 * aborts (what the work is waiting on may never answer: a machine that went
 * quiet). The caller lets go of what the work holds.
 */
async function withinLimit<T>(working: Promise<T>, signal: AbortSignal, words: () => string): Promise<T> {
  working.catch(() => undefined); // when the limit won, what the work says after is not heard
  let onAbort = () => undefined as void;
  const stopped = new Promise<never>((_, reject) => {
    onAbort = () => reject(new SyncError("SYNC_FAILED", words()));
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([working, stopped]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

interface RemoteEntry extends TarEntry {
  remote: string;
}

const S_IFMT = 0o170000;
const kindOfMode = (mode: number) =>
  (mode & S_IFMT) === 0o040000 ? "dir" : (mode & S_IFMT) === 0o100000 ? "file" : (mode & S_IFMT) === 0o120000 ? "symlink" : "other";

/** The run's folder on the host, walked breadth first with every count bounded; nothing followed. */
async function walkRemote(sftp: SFTPWrapper, root: string, tally: Tally): Promise<RemoteEntry[]> {
  const rootAttrs = await call<Attributes>((cb) => sftp.lstat(root, cb)).catch(() => null);
  if (!rootAttrs || kindOfMode(rootAttrs.mode) !== "dir") throw new SyncError("SYNC_FAILED", "The run's folder on the machine is gone");
  const out: RemoteEntry[] = [];
  const queue = [""];
  for (let i = 0; i < queue.length; i++) {
    const dir = queue[i];
    const handle = await call<Buffer>((cb) => sftp.opendir(dir ? `${root}/${dir}` : root, cb));
    const seen = new Set<string>();
    try {
      for (;;) {
        const batch = await call<FileEntryWithStats[] | false>((cb) =>
          sftp.readdir(handle, (err, list) => cb((err as { code?: number } | undefined)?.code === 1 ? undefined : err, err ? false : list)),
        );
        if (!batch) break;
        for (const item of batch) {
          const name = typeof item.filename === "string" ? item.filename : "";
          const rel = dir ? `${dir}/${name}` : name;
          const problem = name.includes("/") ? "a name with a slash" : pathProblem(rel);
          if (problem) {
            tally.skip(rel, problem);
            continue;
          }
          if (seen.has(name)) {
            tally.skip(rel, "a name listed twice");
            continue;
          }
          seen.add(name);
          const kind = kindOfMode(item.attrs?.mode ?? 0);
          const mode = (item.attrs?.mode ?? 0) & 0o777;
          const remote = `${root}/${rel}`;
          if (kind === "dir") {
            tally.entry("dirs");
            out.push({ path: rel, kind, mode: mode | 0o700, size: 0, target: "", remote });
            queue.push(rel);
          } else if (kind === "file") {
            const size = Number(item.attrs?.size ?? 0);
            if (!Number.isSafeInteger(size) || size < 0)
              throw new SyncError("SYNC_FAILED", "The machine sent a file size that is not a number");
            tally.entry("files", size);
            out.push({ path: rel, kind, mode: mode | 0o600, size, target: "", remote });
          } else if (kind === "symlink") {
            const target = await call<string>((cb) => sftp.readlink(remote, cb)).catch(() => "");
            if (!symlinkInside(rel, target)) {
              tally.skip(rel, "a symlink leading out of the workspace");
              continue;
            }
            tally.entry("symlinks");
            out.push({ path: rel, kind, mode: 0o777, size: 0, target, remote });
          } else tally.skip(rel, "not a file, folder or symlink");
        }
      }
    } finally {
      await call<void>((cb) => sftp.close(handle, (err) => cb(err, undefined))).catch(() => undefined);
    }
  }
  return out;
}

/** The entries as a tar stream, each file read from the machine while tar writes it, never past its listed size. */
async function* archiveOf(sftp: SFTPWrapper, entries: RemoteEntry[]): AsyncGenerator<Buffer> {
  for (const e of entries) {
    yield tarHeader(e);
    if (e.kind !== "file" || e.size === 0) continue;
    let got = 0;
    for await (const chunk of sftp.createReadStream(e.remote, { start: 0, end: e.size - 1 }) as AsyncIterable<Buffer>) {
      const part = chunk.subarray(0, e.size - got);
      got += part.length;
      if (part.length) yield part;
      if (got >= e.size) break;
    }
    if (got < e.size) throw new SyncError("SYNC_FAILED", `${e.path.slice(0, 200)} changed on the machine while it was copied back`);
    yield tarPadding(e.size);
  }
  yield TAR_END;
}

/** How long a pull may take before it is given up (a machine that stalls does not hold it forever). */

export interface PullOptions {
  /**
   * How the run's commands are confined on the machine (its facts): with
   * "bubblewrap" the workspace is read by tar in a sandbox of its own there
   * that sees nothing else; with "user" it is walked over SFTP.
   */
  confinement: RemoteConfinement;
  limits?: SyncLimits;
  /** An SFTP session to use ("user"). */
  sftp?: SFTPWrapper;
  signal?: AbortSignal;
  /** Default DEFAULT_PULL_TIMEOUT_MS. */
  timeoutMs?: number;
}

/** Writes to a local tar's stdin, waiting while its pipe is full; a tar that ended fails the write. */
async function put(stdin: Writable, chunk: Buffer, closed: Promise<unknown>): Promise<void> {
  if (stdin.write(chunk)) return;
  await Promise.race([
    once(stdin, "drain"),
    closed.then(() => {
      throw new SyncError("SYNC_FAILED", "tar stopped before the workspace was written");
    }),
  ]);
}

/**
 * The sandbox the pull reads the workspace in on a machine with bubblewrap:
 * the system read-only, the run's workspace read-only at /w and nothing else
 * of the machine's user (no other run's folder, no ~/.ssh), no network. A
 * symlink the run swaps in while tar reads can only point inside that view,
 * and tar follows none (no -h). Everything here is Rein's own text; the
 * folder is a checked run id.
 */
function sandboxedTar(runId: string): string {
  const tar = ["tar", "-c", "-f", "-", "--format=pax", "--numeric-owner", "--hard-dereference", "--one-file-system", "."];
  return inWorkspaceSandbox(runId, "--ro-bind", tar);
}

/**
 * `command` run on the machine in the run's workspace folder (checked to be a
 * folder, not a symlink), at /w in a bubblewrap sandbox that sees nothing else
 * of the machine's user (`bind`: read-only or not), no network, the system
 * read-only. Everything here is Rein's own text; the folder is a checked run id.
 */
function inWorkspaceSandbox(runId: string, bind: "--ro-bind" | "--bind", command: string[]): string {
  const a = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/usr", "/usr"];
  for (const dir of ["/bin", "/lib", "/lib64", "/sbin"]) a.push("--ro-bind-try", dir, dir);
  a.push("--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache", "--dev", "/dev", "--tmpfs", "/tmp");
  const inner = ["--chdir", "/w", "--clearenv", "--setenv", "LC_ALL", "C", "--setenv", "PATH", "/usr/bin:/bin"];
  const q = (args: string[]) => args.map(shellQuote).join(" ");
  return (
    `cd ${runFolder(runId)} && test -d workspace && test ! -L workspace && ` +
    `exec ${q(a)} ${bind} "$PWD/workspace" /w ${q(inner)} ${q(command)}`
  );
}

/** Raw archive bytes a pull takes beyond its file bytes: headers and pax records of every entry it may count. */
const archiveAllowance = (limits: SyncLimits) => limits.maxEntries * (MAX_PAX_ALLOWANCE + 1024) + 1024 * 1024;
const MAX_PAX_ALLOWANCE = 66 * 1024;

/**
 * An archive's entries, checked one by one and written again as a tar stream
 * to `out` (a tar that extracts them): a name may come once, and only inside
 * a folder written before it; a symlink only when it stays inside; files,
 * folders and symlinks only, with modes Rein sets. The rest is counted and
 * listed as skipped.
 */
function entryCopier(tally: Tally, out: Writable, closed: Promise<unknown>) {
  const written = new Map<string, TarKind>();
  return async (entry: TarEntry, body: AsyncIterable<Buffer>): Promise<void> => {
    const rel = entry.path.replace(/^\.\//, "").replace(/\/+$/, "");
    if (rel === "" || rel === ".") return;
    const problem = pathProblem(rel);
    if (problem) return tally.skip(rel, problem);
    if (written.has(rel)) return tally.skip(rel, "a name listed twice");
    const parent = rel.includes("/") ? rel.slice(0, rel.lastIndexOf("/")) : null;
    if (parent !== null && written.get(parent) !== "dir") return tally.skip(rel, "a name inside something that is not a folder");
    if (entry.kind === "dir") {
      tally.entry("dirs");
      written.set(rel, "dir");
      await put(out, tarHeader({ ...entry, path: rel, mode: (entry.mode & 0o777) | 0o700, size: 0, target: "" }), closed);
    } else if (entry.kind === "symlink") {
      if (!symlinkInside(rel, entry.target)) return tally.skip(rel, "a symlink leading out of the workspace");
      tally.entry("symlinks");
      written.set(rel, "symlink");
      await put(out, tarHeader({ ...entry, path: rel, mode: 0o777, size: 0 }), closed);
    } else if (entry.kind === "file") {
      tally.entry("files", entry.size);
      written.set(rel, "file");
      await put(out, tarHeader({ ...entry, path: rel, mode: (entry.mode & 0o777) | 0o600, target: "" }), closed);
      let got = 0;
      for await (const part of body) {
        got += part.length;
        await put(out, part, closed);
      }
      if (got !== entry.size) throw new SyncError("SYNC_FAILED", "The archive ended inside a file");
      await put(out, tarPadding(entry.size), closed);
    } else tally.skip(rel, "not a file, folder or symlink");
  };
}

/** The workspace read in a sandbox on the machine, as the tar stream a local tar extracts; checked entry by entry. */
async function pullSandboxed(
  conn: MachineConnection,
  runId: string,
  tally: Tally,
  limits: SyncLimits,
  stdin: Writable,
  closed: Promise<unknown>,
  onRemote: (close: () => void) => void,
): Promise<void> {
  const remote = await conn.execStream(sandboxedTar(runId), { maxOutputBytes: 4096 });
  onRemote(remote.close);
  const source = remote.stdout[Symbol.asyncIterator]();
  // Every byte counted, the archive's own included: a stream without end ends.
  let raw = 0;
  const most = limits.maxBytes + archiveAllowance(limits);
  const next = async (): Promise<IteratorResult<Buffer>> => {
    const got = await source.next();
    if (!got.done) {
      raw += got.value.length;
      if (raw > most) throw new SyncError("SYNC_LIMIT", `The workspace holds more than ${Math.floor(limits.maxBytes / 1024 / 1024)} MiB`);
    }
    return got;
  };
  const counted: AsyncIterable<Buffer> = { [Symbol.asyncIterator]: () => ({ next }) };
  const copy = entryCopier(tally, stdin, closed);
  const reading = readTar(counted, copy);
  try {
    await reading;
  } catch (err) {
    if (!(err instanceof TarFormatError)) throw err;
    // No archive, or a broken one: what the machine said (bubblewrap or tar could not start) tells why.
    remote.close();
    const said = await Promise.race([remote.done, new Promise<null>((r) => setTimeout(() => r(null), 2000).unref())]);
    const why = said?.stderr.trim().slice(-300);
    throw why ? new SyncError("SYNC_FAILED", `Reading the workspace on the machine failed: ${why}`) : err;
  }
  await put(stdin, TAR_END, closed);
  // The rest of tar's last record, then its exit.
  while (!(await next()).done);
  const status = await remote.done;
  // tar exits 1 when a file changed while it was read (the run may still be working): the archive is still whole.
  if (status.code !== 0 && status.code !== 1)
    throw new SyncError(
      "SYNC_FAILED",
      `Reading the workspace on the machine failed: ${status.stderr.trim().slice(-300) || `exit ${status.code ?? status.signal ?? "unknown"}`}`,
    );
}

/**
 * Copies the run's folder on the machine back into the workspace, which then
 * holds exactly what the machine had (less what `skipped` lists). The
 * workspace is replaced only when everything arrived; on any failure (a
 * bound, the time limit, a dropped connection) it is as it was. Nothing may
 * be using the workspace here meanwhile (the run is on the machine).
 *
 * The run's processes may still be running on the machine and changing its
 * folder while it is read. With bubblewrap there, tar reads it in a sandbox
 * that sees only this workspace, so a folder swapped for a symlink to another
 * run's folder or the user's ~/.ssh leads nowhere. Without bubblewrap it is
 * walked over SFTP, which opens a path following any symlink on it: such a
 * swap between the listing and the reading would have Rein read what the
 * symlink points at. That is no more than the run's processes can read
 * themselves there (they run as the machine's user), which is why such a
 * machine should not host runs of different teams at once.
 */
export async function pullWorkspace(conn: MachineConnection, workspaceDir: string, runId: string, opts: PullOptions): Promise<SyncReport> {
  const limits = opts.limits ?? DEFAULT_SYNC_LIMITS;
  const tally = new Tally("pull", limits);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_PULL_TIMEOUT_MS;
  const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(opts.signal ? [opts.signal] : [])]);
  const sandboxed = opts.confinement === "bubblewrap";
  const base = runFolder(runId);
  // Rein's own folders beside the workspace, named by Rein.
  const staging = `${workspaceDir}.pull`;
  const before = `${workspaceDir}.before-pull`;
  // What the pull holds, for the time limit to let go of (assigned as the work goes).
  const held: { sftp: SFTPWrapper | null; child: ChildProcess | null; closeRemote: (() => void) | null } = {
    sftp: null,
    child: null,
    closeRemote: null,
  };
  let stop = () => undefined as void;
  const stopped = new Promise<never>((_, reject) => {
    stop = () => {
      held.closeRemote?.();
      if (held.child) killGroup(held.child);
      if (held.sftp && !opts.sftp) held.sftp.end();
      reject(
        new SyncError(
          "SYNC_FAILED",
          opts.signal?.aborted
            ? "Copying the workspace back was stopped"
            : `The machine did not send the workspace back within ${Math.round(timeoutMs / 100) / 10} s`,
        ),
      );
    };
  });
  stopped.catch(() => undefined);
  if (signal.aborted) stop();
  else signal.addEventListener("abort", stop, { once: true });
  const work = async () => {
    let entries: RemoteEntry[] = [];
    if (!sandboxed) {
      held.sftp = opts.sftp ?? (await conn.sftp());
      entries = await walkRemote(held.sftp, `${base}/workspace`, tally);
    }
    signal.throwIfAborted();
    fs.rmSync(staging, { recursive: true, force: true });
    fs.mkdirSync(staging, { mode: fs.statSync(workspaceDir).mode & 0o777 });
    const tar = spawnInJail(staging, ["tar", "-x", "-f", "-", "--no-same-owner", "--delay-directory-restore"], {
      stdio: ["pipe", "ignore", "pipe"],
      env: { LC_ALL: "C" },
    });
    held.child = tar;
    let stderr = "";
    tar.stderr!.on("data", (c: Buffer) => (stderr = (stderr + c.toString("utf8")).slice(-2000)));
    const closed = new Promise<number | null>((resolve) => tar.on("close", (code) => resolve(code)));
    tar.stdin!.on("error", () => undefined); // a tar that died says why by its exit
    if (sandboxed) {
      await pullSandboxed(conn, runId, tally, limits, tar.stdin!, closed, (close) => {
        held.closeRemote = close;
        if (signal.aborted) close();
      });
      tar.stdin!.end();
    } else await pipeline(Readable.from(archiveOf(held.sftp!, entries)), tar.stdin!);
    const code = await closed;
    if (code !== 0) throw new SyncError("SYNC_FAILED", `Writing the workspace failed: ${stderr.trim().slice(-300)}`);
    signal.throwIfAborted();
  };
  const working = work();
  working.catch(() => undefined); // when the time limit won the race, what the work says after is not heard
  try {
    await Promise.race([working, stopped]);
    // The file service of the old folder goes; the next request starts one over the new.
    fileServices.release(workspaceDir);
    fs.rmSync(before, { recursive: true, force: true });
    fs.renameSync(workspaceDir, before);
    fs.renameSync(staging, workspaceDir);
    fs.rmSync(before, { recursive: true, force: true });
  } catch (err) {
    held.closeRemote?.();
    if (held.child) killGroup(held.child);
    fs.rmSync(staging, { recursive: true, force: true });
    throw failure(signal.aborted ? await stopped.catch((e: unknown) => e) : err, "Copying the workspace back from the machine");
  } finally {
    signal.removeEventListener("abort", stop);
    if (held.sftp && !opts.sftp) held.sftp.end();
  }
  return tally.done();
}
