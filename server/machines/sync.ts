// A run's workspace on a remote machine (docs/desktops-and-tiers.md#workspace-sync):
// pushed over SFTP into a per-run folder on the host (~/rein-runs/<run>/workspace,
// 0700) and pulled back. Rein never opens a path of the workspace itself: on
// push, tar reads it in the file sandbox (a symlink stays a symlink, nothing
// outside is there to read); on pull, tar writes it in the file sandbox, into
// a fresh folder that replaces the workspace only once it is whole. Both ways,
// every name and symlink is checked here, and the totals are bounded.
import fs from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ChildProcess } from "node:child_process";
import type { Attributes, FileEntryWithStats, SFTPWrapper } from "ssh2";
import { fileServices, spawnInJail } from "@/server/compute";
import type { MachineConnection } from "./ssh";
import { TAR_END, TarFormatError, readTar, tarHeader, tarPadding, type TarEntry } from "./tar";

export interface SyncLimits {
  /** Bytes of file content, all files together. */
  maxBytes: number;
  /** Files, folders and symlinks together. */
  maxEntries: number;
}

export const DEFAULT_SYNC_LIMITS: SyncLimits = { maxBytes: 2048 * 1024 * 1024, maxEntries: 100_000 };

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
async function freshRemoteFolder(conn: MachineConnection, runId: string): Promise<string> {
  const base = runFolder(runId);
  // Rein's own names (a checked run id): safe to type.
  const r = await conn.exec(
    `umask 077 && mkdir -p rein-runs/${runId} && chmod 700 rein-runs rein-runs/${runId} && rm -rf -- ${base}/workspace && mkdir ${base}/workspace`,
    { maxOutputBytes: 4096, signal: AbortSignal.timeout(60_000) },
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
  opts: { limits?: SyncLimits; sftp?: SFTPWrapper } = {},
): Promise<SyncReport> {
  const tally = new Tally("push", opts.limits ?? DEFAULT_SYNC_LIMITS);
  const remote = await freshRemoteFolder(conn, runId);
  const sftp = opts.sftp ?? (await conn.sftp());
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
  try {
    await readTar(child.stdout! as AsyncIterable<Buffer>, async (entry, body) => {
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
        await pipeline(Readable.from(body), sftp.createWriteStream(at, { flags: "wx", mode: (entry.mode & 0o777) | 0o600 }));
      } else tally.skip(rel, "not a file, folder or symlink");
    });
    const code = await closed;
    // tar exits 1 when a file changed while it was read (the agent may be working): the archive is still whole.
    if (code !== 0 && code !== 1) throw new SyncError("SYNC_FAILED", `Reading the workspace failed: ${stderr.trim().slice(-300)}`);
  } catch (err) {
    killGroup(child);
    throw failure(err, "Copying the workspace to the machine");
  } finally {
    if (!opts.sftp) sftp.end();
  }
  return tally.done();
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

/**
 * Copies the run's folder on the machine back into the workspace, which then
 * holds exactly what the machine had (less what `skipped` lists). The
 * workspace is replaced only when everything arrived; on any failure it is
 * as it was. Nothing may be using the workspace meanwhile (the run is on the
 * machine), and nothing of the run may still run on the machine: SFTP opens a
 * path following any symlink on it, so a process there swapping a listed
 * folder for a symlink before it is read would have Rein read what the
 * symlink points at (another run's folder, the machine user's files).
 */
export async function pullWorkspace(
  conn: MachineConnection,
  workspaceDir: string,
  runId: string,
  opts: { limits?: SyncLimits; sftp?: SFTPWrapper } = {},
): Promise<SyncReport> {
  const tally = new Tally("pull", opts.limits ?? DEFAULT_SYNC_LIMITS);
  const sftp = opts.sftp ?? (await conn.sftp());
  // Rein's own folders beside the workspace, named by Rein.
  const staging = `${workspaceDir}.pull`;
  const before = `${workspaceDir}.before-pull`;
  let child: ChildProcess | null = null;
  try {
    const entries = await walkRemote(sftp, `${runFolder(runId)}/workspace`, tally);
    fs.rmSync(staging, { recursive: true, force: true });
    fs.mkdirSync(staging, { mode: fs.statSync(workspaceDir).mode & 0o777 });
    const tar = spawnInJail(staging, ["tar", "-x", "-f", "-", "--no-same-owner", "--delay-directory-restore"], {
      stdio: ["pipe", "ignore", "pipe"],
      env: { LC_ALL: "C" },
    });
    child = tar;
    let stderr = "";
    tar.stderr!.on("data", (c: Buffer) => (stderr = (stderr + c.toString("utf8")).slice(-2000)));
    const closed = new Promise<number | null>((resolve) => tar.on("close", (code) => resolve(code)));
    tar.stdin!.on("error", () => undefined); // a tar that died says why by its exit
    await pipeline(Readable.from(archiveOf(sftp, entries)), tar.stdin!);
    const code = await closed;
    if (code !== 0) throw new SyncError("SYNC_FAILED", `Writing the workspace failed: ${stderr.trim().slice(-300)}`);
    // The file service of the old folder goes; the next request starts one over the new.
    fileServices.release(workspaceDir);
    fs.rmSync(before, { recursive: true, force: true });
    fs.renameSync(workspaceDir, before);
    fs.renameSync(staging, workspaceDir);
    fs.rmSync(before, { recursive: true, force: true });
  } catch (err) {
    if (child) killGroup(child);
    fs.rmSync(staging, { recursive: true, force: true });
    throw failure(err, "Copying the workspace back from the machine");
  } finally {
    if (!opts.sftp) sftp.end();
  }
  return tally.done();
}
