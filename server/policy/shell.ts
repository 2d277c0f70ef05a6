// What a shell command line runs, as policy rules see it
// (docs/human-requests-and-policy.md#policy): the command is parsed with a real
// shell parser (mvdan/sh) and every simple command in it becomes a part: those of
// pipelines, lists, subshells, groups, functions and substitutions, the bodies of
// `sh -c`, here-strings fed to a shell, and the commands that env, xargs, find
// -exec, sudo, nohup, timeout and the like run. Each part is offered to the rules
// in a few spellings (as written, with the program's directory dropped, with flags
// spelled out), so `rm -fr`, `rm -r -f` and `rm --recursive --force` meet the same
// rule. What cannot be known before the command runs (a program named by a
// variable or a substitution, eval, source, a shell reading its commands from
// elsewhere, the `{}` of find -exec and xargs -I, a git setting or an environment
// variable that names a command) is reported as unresolved: the gate asks a
// person. Parsing is bounded: see docs/security.md#the-policy-reads-command-lines.
import path from "node:path";
import { OverBudget, parseShell, TooManyNodes, walkShell, wordText, type Budget, type Node, type Rec } from "./shell-tree";
import { gitRunsHidden, inlineCode, variableRuns } from "./shell-programs";

export interface ShellPart {
  /** The part as written (quotes taken off). */
  text: string;
  /** Spellings offered to the rules. */
  views: string[];
}

export interface ShellAnalysis {
  parts: ShellPart[];
  /** Why the command cannot be checked statically, or null. */
  unresolved: string | null;
}

export const MAX_COMMAND = 64 * 1024;
const MAX_DEPTH = 4;
/** Syntax nodes read per command line: walking them is the slow part of reading a long one. */
export const MAX_NODES = 4_000;
/** Characters of all the spellings offered to the rules: a chain of wrappers must not multiply them. */
const MAX_VIEW_CHARS = 256 * 1024;
const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "ash", "mksh"]);

/** How a program that runs others (find -exec, xargs, parallel) fills in the command it runs. */
interface Filled {
  by: string;
  /** True for a word the program replaces when it runs (`{}`). */
  placeholder: (word: string) => boolean;
  /** The program adds words from its input at the end (xargs without -I). */
  appended: boolean;
}

/** Why a command cannot be checked, with the parts read up to then (a deny among them still decides). */
class Unresolved extends Error {
  constructor(
    message: string,
    readonly parts: ShellPart[] = [],
  ) {
    super(message);
  }
}

/**
 * The budget of the read in place under way, shared by the lines nested in
 * the one read; null for a full read. Module state is safe here: a read is
 * synchronous from start to end.
 */
let budget: Budget | null = null;

/**
 * analyzeShell, or null as soon as the line and those nested in it take more
 * than `limits` characters to parse or nodes to walk: cheap enough to run on
 * the event loop (docs/security.md#the-policy-reads-command-lines). What it
 * returns is what analyzeShell returns.
 */
export function readWithin(command: string, limits: Budget): ShellAnalysis | null {
  budget = { ...limits };
  try {
    return analyzeShell(command);
  } catch (err) {
    if (err instanceof OverBudget) return null;
    throw err;
  } finally {
    budget = null;
  }
}

export function analyzeShell(command: string, depth = 0, filled?: Filled): ShellAnalysis {
  if (command.length > MAX_COMMAND) return { parts: [], unresolved: `the command is longer than ${MAX_COMMAND / 1024} kB` };
  if (budget && (budget.chars -= command.length) < 0) throw new OverBudget();
  let file: Node;
  try {
    file = parseShell(command);
  } catch (err) {
    const e = err as { Error?: () => string; message?: string };
    if (err instanceof RangeError) return { parts: [], unresolved: "it is nested too deeply to check" };
    const message = String(typeof e?.Error === "function" ? e.Error() : (e?.message ?? err)).replace(/^command:/, "");
    return { parts: [], unresolved: `it is not a command line the shell would run (${message})` };
  }
  // Each simple command's parts, by where the command starts: outer commands before those they hold.
  const groups: Array<{ order: number; parts: ShellPart[] }> = [];
  const read = () => groups.sort((a, b) => a.order - b.order).flatMap((g) => g.parts);
  try {
    walkShell(
      file,
      MAX_NODES,
      (rec) => {
        if (rec.type === "Assign") checkAssign(rec);
        if (rec.type !== "Stmt") return;
        const call = rec.kids.find((k) => k.type === "CallExpr");
        const words = call?.kids.filter((k) => k.type === "Word") ?? [];
        if (words.length > 0) groups.push({ order: rec.order, parts: partsOf(words.map(wordText), stdinOf(rec), depth, filled) });
      },
      budget,
    );
  } catch (err) {
    if (err instanceof OverBudget) throw err; // the whole line goes to a full read
    if (err instanceof TooManyNodes)
      return { parts: read(), unresolved: `it has more than ${MAX_NODES} words and commands, too many to check` };
    if (err instanceof Unresolved) return { parts: [...read(), ...err.parts], unresolved: err.message };
    if (err instanceof RangeError) return { parts: read(), unresolved: "it is nested too deeply to check" };
    return { parts: read(), unresolved: "the command could not be read" };
  }
  const parts = read();
  const size = parts.reduce((n, p) => n + p.views.reduce((m, v) => m + v.length, 0), 0);
  if (size > MAX_VIEW_CHARS) return { parts: [], unresolved: "it wraps its commands in too many other commands to check" };
  return { parts, unresolved: null };
}

/** `GIT_SSH_COMMAND=… git fetch`, `export PAGER=…`: a variable that names a command to run. */
function checkAssign(assign: Rec): void {
  if (assign.node.Naked) return;
  const name = String((assign.node.Name as Node | null)?.Value ?? "");
  // The value is the assignment's word; an array (x=(…)) counts as unknown.
  const word = assign.kids.find((k) => k.type === "Word");
  const value = word && !assign.kids.some((k) => k.type === "ArrayExpr") ? wordText(word) : null;
  const why = variableRuns(name, value);
  if (why) throw new Unresolved(why);
}

/** A command line run by a program (sh -c, watch, trap): its parts, or why it cannot be checked. */
function nested(body: string, depth: number, filled?: Filled): ShellPart[] {
  if (depth >= MAX_DEPTH) throw new Unresolved("shells nested too deep to check");
  const inner = analyzeShell(body, depth + 1, filled);
  if (inner.unresolved) throw new Unresolved(inner.unresolved, inner.parts);
  return inner.parts;
}

// mvdan/sh's redirection operators.
const HERE_STRING = 63; // <<<
const HERE_DOCS = new Set([61, 62]); // << and <<-
const FROM_FILE = 56; // <

/** The text a command reads as its input when the command line itself holds it (<<<, <<); "\u0000file" when it reads a file. */
function stdinOf(stmt: Rec): string[] {
  const out: string[] = [];
  for (const r of stmt.kids.filter((k) => k.type === "Redirect")) {
    const op = Number(r.node.Op);
    // A redirection's words: its target, then for << the here-document's body.
    const words = r.kids.filter((k) => k.type === "Word");
    const word = op === HERE_STRING ? words[0] : HERE_DOCS.has(op) ? words[1] : undefined;
    if (word) out.push(wordText(word) ?? "\u0000dynamic");
    else if (op === FROM_FILE) out.push("\u0000file");
  }
  return out;
}

const base = (program: string) => path.posix.basename(program);

/** Options a wrapper takes before the command it runs; `withValue` are those followed by a value. */
const WRAPPERS: Record<string, { withValue: string[]; positional?: number }> = {
  env: { withValue: ["-u", "--unset", "-C", "--chdir", "-S", "--split-string"] },
  sudo: { withValue: ["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T"] },
  doas: { withValue: ["-u", "-C"] },
  nice: { withValue: ["-n", "--adjustment"] },
  nohup: { withValue: [] },
  time: { withValue: ["-f", "--format", "-o", "--output"] },
  timeout: { withValue: ["-s", "--signal", "-k", "--kill-after"], positional: 1 },
  stdbuf: { withValue: ["-i", "-o", "-e"] },
  setsid: { withValue: [] },
  command: { withValue: [] },
  builtin: { withValue: [] },
  exec: { withValue: ["-a"] },
  // -i and --replace take their value joined to them (-i{}, --replace={}), -I the next word.
  xargs: {
    withValue: [
      "-I",
      "-n",
      "-P",
      "-d",
      "-E",
      "-L",
      "-s",
      "-a",
      "--arg-file",
      "--delimiter",
      "--max-args",
      "--max-procs",
      "--max-lines",
      "--max-chars",
      "--eof",
      "--process-slot-var",
    ],
  },
  chroot: { withValue: [], positional: 1 },
  ionice: { withValue: ["-c", "-n", "-p"] },
  chrt: { withValue: [], positional: 1 },
  taskset: { withValue: [], positional: 1 },
  watch: { withValue: ["-n", "--interval", "-d"] },
  flock: { withValue: ["-w", "--timeout", "-E", "--conflict-exit-code"], positional: 1 },
  busybox: { withValue: [] },
  unshare: {
    withValue: [
      "--propagation",
      "-S",
      "--setuid",
      "-G",
      "--setgid",
      "-R",
      "--root",
      "-w",
      "--wd",
      "--map-user",
      "--map-group",
      "--map-users",
      "--map-groups",
    ],
  },
  nsenter: { withValue: ["-t", "--target", "-S", "--setuid", "-G", "--setgid"] },
  strace: { withValue: ["-o", "-e", "-p", "-s", "-u", "-E", "-a", "-b", "-I", "-O", "-S", "-X", "-P"] },
  ltrace: { withValue: ["-o", "-e", "-p", "-s", "-u", "-a", "-n", "-x", "-l", "-L"] },
  runuser: { withValue: ["-u", "--user", "-g", "--group", "-G", "--supp-group", "-s", "--shell", "-w", "--whitelist-environment"] },
  setpriv: {
    withValue: [
      "--reuid",
      "--regid",
      "--groups",
      "--inh-caps",
      "--ambient-caps",
      "--bounding-set",
      "--securebits",
      "--pdeathsig",
      "--selinux-label",
      "--apparmor-profile",
    ],
  },
  fakeroot: { withValue: ["-l", "--lib", "--faked", "-s", "-i", "-b"] },
  "xvfb-run": {
    withValue: [
      "-n",
      "--server-num",
      "-e",
      "--error-file",
      "-f",
      "--auth-file",
      "-p",
      "--xauth-protocol",
      "-s",
      "--server-args",
      "-w",
      "--wait",
    ],
  },
  "dbus-run-session": { withValue: ["--config-file", "--dbus-daemon"] },
  "systemd-run": {
    withValue: [
      "-u",
      "--unit",
      "-p",
      "--property",
      "-d",
      "--description",
      "--slice",
      "-E",
      "--setenv",
      "-M",
      "--machine",
      "-H",
      "--host",
      "--uid",
      "--gid",
      "--nice",
      "--working-directory",
      "--on-calendar",
      "--on-active",
      "--timer-property",
    ],
  },
  caffeinate: { withValue: ["-t", "-w"] },
};

/** Options of GNU parallel followed by a value. */
const PARALLEL_WITH_VALUE = new Set([
  "-j",
  "--jobs",
  "-P",
  "--max-procs",
  "-S",
  "--sshlogin",
  "-a",
  "--arg-file",
  "-d",
  "--delimiter",
  "-I",
  "-N",
  "-n",
  "--max-args",
  "-L",
  "--max-lines",
  "--colsep",
  "-C",
  "--timeout",
  "--delay",
  "--joblog",
  "--results",
  "--tmpdir",
  "--workdir",
  "--wd",
  "-E",
  "--env",
  "--basefile",
  "--return",
  "--retries",
  "--memfree",
  "--load",
  "--tagstring",
  "--shebang-wrap",
]);
const FIND_RUNS = ["-exec", "-execdir", "-ok", "-okdir"];

/** xargs' replacement string: -I R, -IR, -i (meaning {}), -iR, --replace, --replace=R; null when xargs appends instead. */
function xargsReplace(args: string[]): string | null {
  let replace: string | null = null;
  for (let i = 0; i < args.length && args[i].startsWith("-") && args[i] !== "--"; i++) {
    const a = args[i];
    if (a === "-I") replace = args[++i] ?? "";
    else if (a.startsWith("-I")) replace = a.slice(2);
    else if (a === "-i" || a === "--replace") replace = "{}";
    else if (a.startsWith("--replace=")) replace = a.slice("--replace=".length);
    else if (a.startsWith("-i") && !a.startsWith("--")) replace = a.slice(2);
    else if (WRAPPERS.xargs.withValue.includes(a)) i++;
  }
  return replace;
}

function partsOf(words: Array<string | null>, stdin: string[], depth: number, filled?: Filled): ShellPart[] {
  if (words[0] === null) throw new Unresolved("the program it runs comes from a variable or a substitution, known only when it runs");
  const program = words[0]!;
  if (filled?.placeholder(program))
    throw new Unresolved(`the program ${filled.by} runs is filled in from file names or its input when it runs`);
  const name = base(program);
  const args = words.slice(1).map((w) => (w === null ? "$?" : w));
  const here = part([program, ...args], stdin);
  if (name === "git") {
    const why = gitRunsHidden(args);
    if (why) throw new Unresolved(why, [here]);
  }
  if (name === "eval") throw new Unresolved("eval runs text put together when it runs");
  if (name === "source" || name === ".") throw new Unresolved(`${name} runs the commands of a file, which cannot be checked before`);
  if (name === "alias") throw new Unresolved("an alias changes what later names run");
  if (name === "command" && args.some((a) => a === "-v" || a === "-V")) return [here]; // only says where a program is
  // Programs that hand a command line to a shell: its commands are read like the outer line's.
  const body = shellBody(name, args);
  if (body !== undefined) {
    if (body === null) throw new Unresolved(`${name} runs commands known only when it runs`);
    if (filled?.placeholder(body)) throw new Unresolved(`${filled.by} writes file names or its input into the commands ${name} runs`);
    return [here, ...nested(body, depth, filled)];
  }
  if (name === "parallel") return [here, ...parallelParts(args, depth)];
  const wrapper = WRAPPERS[name];
  if (wrapper) {
    if (name === "env" || name === "sudo") {
      if (name === "env" && args.some((a) => /^(-[a-zA-Z]*S|--split-string)/.test(a)))
        throw new Unresolved("env -S splits its text into a command when it runs");
      for (const a of args) {
        const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(a);
        const why = m && variableRuns(m[1], m[2]);
        if (why) throw new Unresolved(why);
      }
    }
    const rest = afterOptions(args, wrapper.withValue, name === "env" || name === "sudo", wrapper.positional ?? 0);
    if (rest.some((w, i) => i === 0 && w === "$?"))
      throw new Unresolved(`the program ${name} runs comes from a variable or a substitution`);
    if (name === "xargs") {
      const replace = xargsReplace(args);
      const inner: Filled =
        replace === null
          ? { by: "xargs", placeholder: () => false, appended: true }
          : { by: "xargs", placeholder: (w) => w.includes(replace), appended: false };
      // xargs reads its input itself; the command it runs gets none of it on its input.
      return rest.length ? [here, ...partsOf(rest, [], depth, inner)] : [here];
    }
    if (rest.length === 0 && filled?.appended)
      throw new Unresolved(`the program ${name} runs comes from the input of ${filled.by}, known only when it runs`);
    // watch hands its words to sh -c unless told -x.
    if (name === "watch" && !args.some((a) => a === "-x" || a === "--exec"))
      return rest.length ? [here, ...nested(rest.join(" "), depth, filled)] : [here];
    return rest.length ? [here, ...partsOf(rest, stdin, depth, filled)] : [here];
  }
  if (name === "find") {
    const inner: ShellPart[] = [];
    const braces: Filled = { by: "find", placeholder: (w) => w.includes("{}"), appended: false };
    for (let i = 0; i < args.length; i++) {
      if (FIND_RUNS.includes(args[i])) {
        const end = args.findIndex((a, j) => j > i && (a === ";" || a === "+"));
        const sub = args.slice(i + 1, end < 0 ? undefined : end);
        if (sub.length) inner.push(...partsOf(sub, [], depth, braces));
        if (end < 0) break;
        i = end;
      }
    }
    return [here, ...inner];
  }
  if (SHELLS.has(name)) return [here, ...shellParts(args, stdin, depth, filled)];
  return [here];
}

/**
 * The command line a program hands to a shell, undefined when it does not,
 * null when it comes from elsewhere: `trap CMD SIG`, `script -c CMD`,
 * `flock F -c CMD`, `su -c CMD`, `sg GROUP CMD`.
 */
function shellBody(name: string, args: string[]): string | null | undefined {
  if (name === "trap") return args.length >= 2 && !args[0].startsWith("-") ? args[0] : undefined;
  if (name === "sg") return args.length >= 2 ? args.slice(args[1] === "-c" ? 2 : 1).join(" ") : undefined;
  if (!["script", "flock", "su", "runuser"].includes(name)) return undefined;
  let operands = 0;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    // Options come before the command; flock and su also take them after a file or a user name.
    if (a === "--" || (!a.startsWith("-") && ++operands > 1)) break;
    const long = /^--(command|session-command)(=(.*))?$/s.exec(a);
    if (long) return long[2] ? long[3] : (args[i + 1] ?? null);
    if (/^-[a-zA-Z]*c$/.test(a) && !a.startsWith("--")) return args[i + 1] ?? null;
  }
  // script without -c starts a shell that reads its input.
  return name === "script" ? null : undefined;
}

/** GNU parallel joins its command's words and hands them to a shell, once per input. */
function parallelParts(args: string[], depth: number): ShellPart[] {
  let i = 0;
  while (i < args.length && args[i].startsWith("-") && !args[i].startsWith(":::")) i += PARALLEL_WITH_VALUE.has(args[i]) ? 2 : 1;
  const end = args.findIndex((a, j) => j >= i && /^::::?\+?$/.test(a));
  const words = args.slice(i, end < 0 ? undefined : end);
  if (words.length === 0) throw new Unresolved("parallel runs its input as commands, known only when it runs");
  return nested(words.join(" "), depth, { by: "parallel", placeholder: (w) => /\{[^{}]*\}/.test(w), appended: true });
}

/** sh -c BODY, sh SCRIPT ARGS, sh <<<BODY: what a shell runs. */
function shellParts(args: string[], stdin: string[], depth: number, filled?: Filled): ShellPart[] {
  let i = 0;
  let body: string | null = null;
  let checkOnly = false;
  for (; i < args.length && args[i].startsWith("-") && args[i] !== "-" && args[i] !== "--"; i++) {
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(args[i])) {
      // `xargs sh -c`: the code is the first word of xargs' input.
      if (args[i + 1] === undefined && filled?.appended)
        throw new Unresolved(`a shell runs code from the input of ${filled.by}, known only when it runs`);
      body = args[i + 1] ?? "";
    }
    if (/^-[a-zA-Z]*n[a-zA-Z]*$/.test(args[i])) checkOnly = true;
    if (args[i] === "-o" || args[i] === "+o") i++;
  }
  if (args[i] === "--") i++;
  if (body !== null) {
    if (body === "$?") throw new Unresolved("a shell runs text known only when it runs");
    if (filled?.placeholder(body)) throw new Unresolved(`${filled.by} writes file names or its input into the code a shell runs`);
    return nested(body, depth);
  }
  if (checkOnly) return []; // sh -n: reads the script, runs nothing
  const script = args[i];
  if (filled && (script === undefined ? filled.appended : filled.placeholder(script))) {
    throw new Unresolved(`the script a shell runs comes from the input of ${filled.by}, known only when it runs`);
  }
  if (script === undefined) {
    if (stdin.length === 0) throw new Unresolved("a shell reads its commands from its input, which cannot be checked before");
    return stdin.flatMap((text) => {
      if (text === "\u0000file") throw new Unresolved("a shell runs the commands of a file, which cannot be checked before");
      if (text === "\u0000dynamic") throw new Unresolved("a shell runs text known only when it runs");
      return nested(text, depth);
    });
  }
  if (script === "$?") throw new Unresolved("a shell runs a script named by a variable or a substitution");
  // `sh deploy.sh production` runs deploy.sh as `./deploy.sh production` would.
  return [part([script, ...args.slice(i + 1)])];
}

function afterOptions(args: string[], withValue: string[], assignments: boolean, positional: number): string[] {
  let i = 0;
  while (i < args.length) {
    const a = args[i];
    if (a === "--") {
      i++;
      break;
    }
    if (assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) i++;
    else if (a.startsWith("-") && a !== "-") i += withValue.includes(a) ? 2 : 1;
    else break;
  }
  return args.slice(i + positional);
}

const SHORT_FLAG_PROGRAMS = new Set([
  "rm",
  "cp",
  "mv",
  "chmod",
  "chown",
  "chgrp",
  "ln",
  "mkdir",
  "rmdir",
  "ls",
  "grep",
  "rsync",
  "kill",
  "pkill",
  "tar",
  "shred",
  "truncate",
]);

/** A word as it could be typed again: quoted when it holds spaces or shell characters. */
function quoted(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./{}-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

const GIT_GLOBAL_WITH_VALUE = new Set([
  "-C",
  "-c",
  "--git-dir",
  "--work-tree",
  "--namespace",
  "--exec-path",
  "--super-prefix",
  "--config-env",
  "--list-cmds",
]);

/** The spellings of one simple command offered to the rules. */
function part(words: string[], stdin: string[] = []): ShellPart {
  const [program, ...args] = words;
  const name = base(program);
  const views = new Set<string>([[program, ...args].map(quoted).join(" "), [name, ...args].map(quoted).join(" ")]);
  // An interpreter given its code inline is also offered as `python3 -c CODE`, `node -e CODE`, `php -r CODE`.
  const inline = inlineCode(name, args, stdin);
  if (inline) views.add([name, inline.flag, inline.code].map(quoted).join(" "));
  // Combined short flags are spelled out only for programs known to take them that way (find's -exec is one flag).
  let normal = SHORT_FLAG_PROGRAMS.has(name)
    ? args.flatMap((a) => (/^-[A-Za-z]{2,}$/.test(a) ? [...a.slice(1)].map((c) => `-${c}`) : [a]))
    : [...args];
  if (name === "git") {
    let i = 0;
    while (i < normal.length && normal[i].startsWith("-")) i += GIT_GLOBAL_WITH_VALUE.has(normal[i]) ? 2 : 1;
    normal = normal.slice(i);
  }
  if (name === "rm") {
    normal = normal.map((a) => (a === "--recursive" || a === "-R" ? "-r" : a === "--force" ? "-f" : a));
    const operands = normal.filter((a) => !a.startsWith("-"));
    if (normal.includes("-r") && normal.includes("-f")) views.add(["rm", "-rf", ...operands].map(quoted).join(" "));
  }
  views.add([name, ...normal].map(quoted).join(" "));
  return { text: words.map(quoted).join(" "), views: [...views] };
}
