// A run's terminal on a remote machine (docs/desktops-and-tiers.md#a-runs-terminal-on-a-machine):
// the same terminal pod as T1 (markers, redaction, exec, watchers, take over),
// its shell at a PTY over SSH, in the run's folder on the host. Where the
// machine's bubblewrap works, the shell is confined as the local pod is: the
// system read-only, the run's workspace the only writable folder, a private
// /tmp, no network unless the run's limits allow it, its own accounts file.
// Elsewhere it runs as the machine's user under ulimits.
import { StringDecoder } from "node:string_decoder";
import type { SFTPWrapper } from "ssh2";
import {
  POD_SECRETS_DIR,
  POD_WORKDIR,
  PodError,
  PtyPod,
  SHELL_ENV,
  shellQuote,
  type PodLimits,
  type PodTerminal,
  type SecretFile,
} from "@/server/compute";
import type { MachineConnection } from "./ssh";
import { runFolder } from "./sync";

export type RemoteConfinement = "bubblewrap" | "user";

export interface RemotePodOptions {
  conn: MachineConnection;
  runId: string;
  /** The run's workspace here (what is synced to the machine and back). */
  workspaceDir: string;
  confinement: RemoteConfinement;
  limits: PodLimits;
  cols?: number;
  rows?: number;
  /** How long one SFTP step (opening the session, writing a file) and opening the shell may take; default 30 s. */
  sftpTimeoutMs?: number;
}

/** A step over SFTP, or opening the shell: the machine may answer its keepalives and never this. */
const STEP_TIMEOUT_MS = 30_000;
const HOME = /^\/[A-Za-z0-9._/-]{0,200}$/;
const POD_UID = 1000;

const call = <T>(fn: (cb: (err: Error | undefined | null, value: T) => void) => void) =>
  new Promise<T>((resolve, reject) => fn((err, value) => (err ? reject(err) : resolve(value))));

/** The pod's own accounts: one user, nothing of the machine's. */
const PASSWD = `root:x:0:0:root:/root:/usr/sbin/nologin\nrein:x:${POD_UID}:${POD_UID}:Rein agent:${POD_WORKDIR}:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`;
const GROUP = `root:x:0:\nrein:x:${POD_UID}:\nnogroup:x:65534:\n`;

export class RemotePod extends PtyPod {
  private sftp: SFTPWrapper | null = null;
  /** The run's folder on the host, absolute. */
  private folder = "";
  private killed: Promise<void> | null = null;

  private constructor(private readonly options: RemotePodOptions) {
    super(options.workspaceDir, options.confinement === "bubblewrap" ? "bubblewrap" : "none", options.limits);
  }

  /** Starts the shell in the run's folder on the machine; the workspace must have been pushed there. */
  static async open(options: RemotePodOptions): Promise<RemotePod> {
    const pod = new RemotePod(options);
    await pod.boot(options.cols ?? 120, options.rows ?? 32);
    return pod;
  }

  private env(): Record<string, string> {
    const user = this.options.confinement === "user";
    return {
      PATH: "/usr/local/bin:/usr/bin:/bin",
      HOME: user ? `${this.folder}/workspace` : POD_WORKDIR,
      TERM: "xterm-256color",
      LANG: "C.UTF-8",
      HISTFILE: user ? `${this.folder}/bash_history` : "/tmp/.bash_history",
      PAGER: "cat",
      GIT_PAGER: "cat",
      GIT_AUTHOR_NAME: "Rein agent",
      GIT_AUTHOR_EMAIL: "agent@rein.local",
      GIT_COMMITTER_NAME: "Rein agent",
      GIT_COMMITTER_EMAIL: "agent@rein.local",
      ...SHELL_ENV,
    };
  }

  /** The shell under the pod's rlimits; ulimit -f counts KiB in bash. */
  private shellCommand(): string[] {
    const l = this.limits;
    const limits = `ulimit -t ${l.cpuSeconds} && ulimit -f ${l.fileSizeMb * 1024} && ulimit -c 0 && ulimit -u ${l.processes}`;
    return ["/usr/bin/bash", "--noprofile", "--norc", "-c", `${limits} && exec /usr/bin/bash --noprofile --norc -i`];
  }

  /** The start script: written over SFTP (never typed), it becomes the confined shell. */
  private script(): string {
    const q = shellQuote;
    const R = q(this.folder);
    // The session's id (the sixth field of /proc/<pid>/stat), for killing all of it when the terminal closes; with
    // its leader's start time (the 22nd) and the machine's boot id, so a number the machine gave to another
    // session since (this one ended with a connection that dropped, the machine restarted) is not taken for it.
    const lines = [
      "#!/bin/sh",
      `read -r _ _ _ _ _ sid _ < /proc/$$/stat && s=$(cat /proc/$sid/stat) && s=\${s##*) } && set -- $s && ` +
        `echo "$sid \${20} $(cat /proc/sys/kernel/random/boot_id)" > ${R}/pod.pid`,
    ];
    const env = this.env();
    if (this.options.confinement === "bubblewrap") {
      const a = ["bwrap", "--unshare-all", "--die-with-parent"];
      if (this.limits.network) a.push("--share-net");
      a.push("--ro-bind", "/usr", "/usr");
      for (const dir of ["/bin", "/lib", "/lib64", "/sbin"]) a.push("--ro-bind-try", dir, dir);
      a.push("--ro-bind", `${this.folder}/etc/passwd`, "/etc/passwd", "--ro-bind", `${this.folder}/etc/group`, "/etc/group");
      for (const file of [
        "/etc/hosts",
        "/etc/nsswitch.conf",
        "/etc/localtime",
        "/etc/ssl",
        "/etc/ca-certificates",
        "/etc/alternatives",
        "/etc/bash.bashrc",
        "/etc/inputrc",
        "/etc/terminfo",
        "/etc/ld.so.cache",
        ...(this.limits.network ? ["/etc/resolv.conf"] : []),
      ])
        a.push("--ro-bind-try", file, file);
      a.push("--proc", "/proc", "--dev", "/dev", "--size", String(this.limits.tmpMb * 1024 * 1024), "--tmpfs", "/tmp");
      a.push("--bind", `${this.folder}/workspace`, POD_WORKDIR, "--chdir", POD_WORKDIR);
      a.push("--ro-bind", `${this.folder}/secrets`, POD_SECRETS_DIR);
      a.push("--hostname", "rein-pod", "--unshare-user", "--uid", String(POD_UID), "--gid", String(POD_UID), "--clearenv");
      for (const [k, v] of Object.entries(env)) a.push("--setenv", k, v);
      lines.push(`exec ${[...a, ...this.shellCommand()].map(q).join(" ")}`);
    } else {
      lines.push(`cd ${R}/workspace || exit 1`);
      const vars = Object.entries(env).map(([k, v]) => `${k}=${v}`);
      lines.push(`exec ${["env", "-i", ...vars, ...this.shellCommand()].map(q).join(" ")}`);
    }
    return `${lines.join("\n")}\n`;
  }

  private get stepMs() {
    return this.options.sftpTimeoutMs ?? STEP_TIMEOUT_MS;
  }

  /** The pod's SFTP session, opened again when an earlier one was given up. */
  private async session(): Promise<SFTPWrapper> {
    this.sftp ??= await this.options.conn.sftp(this.stepMs);
    return this.sftp;
  }

  /**
   * A file written on the machine within the step's time limit: an SFTP server
   * that stops answering (the run's processes, as the machine's user, can stop
   * it; a disk that hangs) while the connection answers its keepalives would
   * hold the command, or the pod's start, for good. The session is given up
   * then; the next write opens another.
   */
  private async writeRemote(file: string, content: string, mode: number, flags = "w") {
    const sftp = await this.session();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        if (this.sftp === sftp) this.sftp = null;
        sftp.end();
        reject(new PodError("TIMEOUT", `The machine did not write the pod's file within ${Math.round(this.stepMs / 100) / 10} s`));
      }, this.stepMs);
    });
    try {
      await Promise.race([call<void>((cb) => sftp.writeFile(file, content, { mode, flag: flags }, (err) => cb(err, undefined))), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  protected override async openTerminal(cols: number, rows: number): Promise<{ terminal: PodTerminal; started(): void }> {
    const { conn, runId } = this.options;
    const base = runFolder(runId);
    const setup = await conn.exec(`umask 077 && mkdir -p ${base}/secrets ${base}/etc && test -d ${base}/workspace && pwd`, {
      maxOutputBytes: 4096,
      signal: AbortSignal.timeout(30_000),
    });
    const home = setup.stdout.trim();
    if (setup.code !== 0) throw new Error("the run's folder on the machine is missing: push the workspace first");
    if (!HOME.test(home)) throw new Error("the machine's home folder has a name Rein does not use");
    this.folder = `${home}/${base}`;
    await this.writeRemote(`${base}/etc/passwd`, PASSWD, 0o644);
    await this.writeRemote(`${base}/etc/group`, GROUP, 0o644);
    await this.writeRemote(`${base}/pod.sh`, this.script(), 0o700);
    const shell = await conn.shell({ cols, rows, command: `/bin/sh ${base}/pod.sh`, timeoutMs: this.stepMs });
    const decoder = new StringDecoder("utf8");
    const terminal: PodTerminal = {
      write: (data) => shell.write(data),
      resize: (c, r) => shell.resize(c, r),
      kill: () => shell.close(),
      onData: (listener) =>
        shell.onData((chunk) => {
          const text = decoder.write(chunk);
          if (text) listener(text);
        }),
      onExit: (listener) => void shell.exited.then((s) => listener(s.code ?? 137)),
    };
    return { terminal, started: () => undefined };
  }

  /** No du on the machine: the workspace's size there is bounded per file by RLIMIT_FSIZE, and by the sync's bounds when it comes back. */
  protected override watchDisk(): null {
    return null;
  }

  protected override async storeSecretFile(base: string, content: string): Promise<SecretFile> {
    const file = `${this.folder}/secrets/${base}`;
    await this.writeRemote(file, content, 0o600, "wx");
    const seen = this.options.confinement === "bubblewrap" ? `${POD_SECRETS_DIR}/${base}` : file;
    // A session given up meanwhile: the file goes with the pod's files (killLeftovers).
    return { source: `. ${shellQuote(seen)}; `, remove: () => void this.sftp?.unlink(file, () => undefined) };
  }

  protected override cleanup() {
    super.cleanup();
    this.killed ??= this.killRemote();
  }

  /**
   * Kills what is left of the shell's session on the machine and removes the
   * pod's files there (secrets, start script); the workspace stays until it
   * is pulled back.
   */
  private async killRemote(): Promise<void> {
    const { conn } = this.options;
    this.sftp?.end();
    this.sftp = null;
    if (conn.isClosed || !this.folder) return;
    await RemotePod.killLeftovers(conn, this.options.runId).catch(() => undefined);
  }

  /**
   * What a pod of the run left on the machine: the processes of its shell's
   * session (by the session id it wrote down) killed, its files (secrets,
   * start script, history) removed. For a connection that dropped, from the next.
   *
   * The session is the pod's only when the machine has not restarted since
   * (its boot id) and the session's leader is the one that wrote the file
   * (its start time), or is gone while processes of its session are left (a
   * session's number is not given out again while any process is in it). A
   * number the machine has given to another session since (another run's
   * shell) is left alone, and so are 0 and 1 (`kill -- -1` is every process
   * of the user).
   */
  static async killLeftovers(conn: MachineConnection, runId: string): Promise<void> {
    const base = runFolder(runId);
    const kill =
      `set -f; set -- $(head -c 200 ${base}/pod.pid 2>/dev/null); p=$1 t=$2 b=$3; ` +
      `case "$p" in ''|*[!0-9]*|0|1) p=;; esac; case "$t" in ''|*[!0-9]*) p=;; esac; ` +
      `[ -n "$b" ] && [ "$b" = "$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)" ] || p=; ` +
      `if [ -n "$p" ] && s=$(cat /proc/$p/stat 2>/dev/null); then s=\${s##*) }; set -- $s; [ "\${20}" = "$t" ] || p=; fi; ` +
      // SIGKILL lands a moment later: wait (up to 2 s) until nothing but zombies is left of the session.
      `if [ -n "$p" ]; then pkill -KILL -s "$p"; kill -KILL -- "-$p"; ` +
      `for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do ps -o stat= -s "$p" | grep -q '^[^Z]' || break; sleep 0.1; done; fi 2>/dev/null; ` +
      `rm -rf -- ${base}/secrets ${base}/etc ${base}/pod.sh ${base}/pod.pid ${base}/bash_history; true`;
    await conn.exec(kill, { maxOutputBytes: 4096, signal: AbortSignal.timeout(15_000) });
  }

  override async dispose(reason = "it was stopped") {
    await super.dispose(reason);
    await this.killed;
  }
}
