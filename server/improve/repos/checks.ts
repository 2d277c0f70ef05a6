// The CI runner for change requests (docs/changes.md): the
// repository's test command runs in a terminal pod of its own over the
// change's worktree — bubblewrap, no network, the worktree the only host
// folder it sees, a time limit — and its output is kept, capped. No secret is
// passed to it, so none can be in its log.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Db } from "@/server/db";
import { DEFAULT_LIMITS, PodError, PtyPod, probeSandbox, type PodLimits, type SandboxStatus } from "@/server/compute";
import { RepositoryError } from "./errors";
import type { RepositoryRow } from "./registry";

export const MAX_CHECK_LOG_BYTES = 256 * 1024;

export type CheckState = "running" | "passed" | "failed" | "timed_out" | "error";

export interface CheckResult {
  state: Exclude<CheckState, "running">;
  /** The command's exit status; null when it timed out or could not run. */
  exitCode: number | null;
  log: string;
  /** Bytes of output left out of the middle of the log. */
  logDroppedBytes: number;
  durationMs: number;
  timedOut: boolean;
  /** The ChangeCheck row, when a change request was named. */
  checkId: string | null;
}

export interface CheckOptions {
  /** Records a ChangeCheck row (and the change request's last result) when both are given. */
  db?: Db;
  changeRequestId?: string;
  /** Whether bubblewrap works here (default: probed once). */
  sandbox?: SandboxStatus;
  /** Run without a sandbox when bubblewrap is unavailable: development only, never the default. */
  allowUnsandboxed?: boolean;
  limits?: Partial<Omit<PodLimits, "network">>;
  maxLogBytes?: number;
  /** "before": the same tests on the change's base, for a change that claims a fix (docs/changes.md#before-and-after). */
  kind?: "tests" | "before";
}

let probed: SandboxStatus | null = null;
const sandboxStatus = () => (probed ??= probeSandbox());

/** The log of a long output: its start and its end, with what was left out said in the middle. */
export function readCapped(file: string, max: number): { text: string; dropped: number } {
  let size = 0;
  try {
    size = fs.statSync(file).size;
  } catch {
    return { text: "", dropped: 0 };
  }
  const fd = fs.openSync(file, "r");
  try {
    if (size <= max) {
      const buf = Buffer.alloc(size);
      fs.readSync(fd, buf, 0, size, 0);
      return { text: buf.toString("utf8"), dropped: 0 };
    }
    const headBytes = Math.floor(max / 4);
    const tailBytes = max - headBytes;
    const head = Buffer.alloc(headBytes);
    const tail = Buffer.alloc(tailBytes);
    fs.readSync(fd, head, 0, headBytes, 0);
    fs.readSync(fd, tail, 0, tailBytes, size - tailBytes);
    const dropped = size - max;
    return { text: `${head.toString("utf8")}\n[… ${dropped} bytes of output left out …]\n${tail.toString("utf8")}`, dropped };
  } finally {
    fs.closeSync(fd);
  }
}

/** Keeps package managers' caches and the like out of the worktree: HOME is the pod's private /tmp. */
const PRELUDE = "export HOME=/tmp CI=1 npm_config_cache=/tmp/.npm npm_config_update_notifier=false; ";

/** Runs the repository's test command over the worktree in a sandboxed pod; never throws for a failing command. */
export async function runChecks(
  repo: Pick<RepositoryRow, "testCommand" | "testTimeoutSec">,
  worktreePath: string,
  opts: CheckOptions = {},
): Promise<CheckResult> {
  const status = opts.sandbox ?? sandboxStatus();
  if (!status.ok && !opts.allowUnsandboxed)
    throw new RepositoryError("SANDBOX_UNAVAILABLE", `Checks run only in a sandbox, which is unavailable here: ${status.message}`);
  if (!fs.existsSync(worktreePath))
    throw new RepositoryError("NOT_FOUND", "The change's worktree is gone; make it again before running its checks");
  const record = opts.db && opts.changeRequestId ? { db: opts.db, changeRequestId: opts.changeRequestId } : null;
  const started = Date.now();
  const row = record
    ? await record.db.changeCheck.create({
        data: { changeRequestId: record.changeRequestId, kind: opts.kind ?? "tests", state: "running" },
        select: { id: true },
      })
    : null;
  const timeoutMs = repo.testTimeoutSec * 1000;
  const limits: PodLimits = { ...DEFAULT_LIMITS, ...opts.limits, wallTimeSec: repo.testTimeoutSec + 60, network: false };
  const spillDir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-check-"));
  const spillPath = path.join(spillDir, "output.log");
  let exitCode: number | null = null;
  let timedOut = false;
  let failure: string | null = null;
  let pod: PtyPod | null = null;
  try {
    pod = await PtyPod.start({ workspaceDir: worktreePath, limits, sandbox: status.ok ? "bubblewrap" : "none" });
    const r = await pod.exec(PRELUDE + repo.testCommand, { timeoutMs, spillPath });
    exitCode = r.exitCode;
  } catch (err) {
    if (err instanceof PodError && err.code === "TIMEOUT") timedOut = true;
    else failure = (err as Error).message;
  } finally {
    await pod?.dispose("the checks ended");
  }
  const durationMs = Date.now() - started;
  const captured = readCapped(spillPath, opts.maxLogBytes ?? MAX_CHECK_LOG_BYTES);
  fs.rmSync(spillDir, { recursive: true, force: true });
  let log = captured.text;
  if (timedOut) log += `\n[the test command ran longer than ${repo.testTimeoutSec} s and was stopped]\n`;
  if (failure) log += `\n[the checks could not run: ${failure}]\n`;
  const state: CheckResult["state"] = timedOut ? "timed_out" : failure ? "error" : exitCode === 0 ? "passed" : "failed";
  if (record && row) {
    const endedAt = new Date();
    await record.db.changeCheck.update({ where: { id: row.id }, data: { state, endedAt, exitCode, log, durationMs } });
    const cr = await record.db.changeRequest.findUnique({ where: { id: record.changeRequestId }, select: { checks: true } });
    let checks: Record<string, unknown> = {};
    try {
      checks = JSON.parse(cr?.checks ?? "{}") as Record<string, unknown>;
    } catch {
      /* start again */
    }
    checks[opts.kind ?? "tests"] = { checkId: row.id, state, exitCode, durationMs, endedAt: endedAt.toISOString() };
    await record.db.changeRequest.update({ where: { id: record.changeRequestId }, data: { checks: JSON.stringify(checks) } });
  }
  return { state, exitCode, log, logDroppedBytes: captured.dropped, durationMs, timedOut, checkId: row?.id ?? null };
}
