// What a shell command line runs, as policy rules see it (SPEC section 5):
// the command is parsed with a real shell parser (mvdan/sh) and every simple
// command in it becomes a part: those of pipelines, lists, subshells, groups,
// functions and substitutions, the bodies of `sh -c`, here-strings fed to a
// shell, and the commands that env, xargs, find -exec, sudo, nohup, timeout
// and the like run. Each part is offered to the rules in a few spellings (as
// written, with the program's directory dropped, with flags spelled out), so
// `rm -fr`, `rm -r -f` and `rm --recursive --force` meet the same rule. What
// cannot be known before the command runs (a program named by a variable or
// a substitution, eval, source, a shell reading its commands from elsewhere)
// is reported as unresolved: the gate asks a person.
import path from "node:path";
import sh from "mvdan-sh";

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

const MAX_COMMAND = 64 * 1024;
const MAX_DEPTH = 4;
const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "ash", "mksh", "busybox"]);

// mvdan-sh's nodes, as far as this file reads them.
type Node = { [key: string]: unknown };
const syntax = (sh as unknown as { syntax: { NewParser(): { Parse(src: string, name: string): Node }; Walk(n: Node, f: (n: Node | null) => boolean): void; NodeType(n: Node): string } }).syntax;

class Unresolved extends Error {}

export function analyzeShell(command: string, depth = 0): ShellAnalysis {
  if (command.length > MAX_COMMAND) return { parts: [], unresolved: `the command is longer than ${MAX_COMMAND / 1024} kB` };
  let file: Node;
  try {
    file = syntax.NewParser().Parse(command, "command");
  } catch (err) {
    const e = err as { Error?: () => string; message?: string };
    const message = String(typeof e?.Error === "function" ? e.Error() : (e?.message ?? err)).replace(/^command:/, "");
    return { parts: [], unresolved: `it is not a command line the shell would run (${message})` };
  }
  const parts: ShellPart[] = [];
  try {
    syntax.Walk(file, (node) => {
      if (!node || syntax.NodeType(node) !== "Stmt") return true;
      const call = node.Cmd as Node | null;
      if (call && syntax.NodeType(call) === "CallExpr") {
        const args = (call.Args as Node[]) ?? [];
        if (args.length > 0) parts.push(...partsOf(args.map(wordText), stdinOf(node), depth));
      }
      return true;
    });
  } catch (err) {
    if (err instanceof Unresolved) return { parts, unresolved: err.message };
    return { parts, unresolved: "the command could not be read" };
  }
  return { parts, unresolved: null };
}

// mvdan/sh's redirection operators.
const HERE_STRING = 63; // <<<
const HERE_DOCS = new Set([61, 62]); // << and <<-
const FROM_FILE = 56; // <

/** The text a command reads as its input when the command line itself holds it (<<<, <<); "FILE" when it reads a file. */
function stdinOf(stmt: Node): string[] {
  const out: string[] = [];
  for (const r of (stmt.Redirs as Node[]) ?? []) {
    const op = Number(r.Op);
    const word = op === HERE_STRING ? (r.Word as Node | null) : HERE_DOCS.has(op) ? (r.Hdoc as Node | null) : null;
    if (word) {
      const text = wordText(word);
      out.push(text ?? "\u0000dynamic");
    } else if (op === FROM_FILE) out.push("\u0000file");
  }
  return out;
}

/** A word's text once the shell has taken quotes and escapes off, or null when it depends on run time (a variable, a substitution). */
function wordText(word: Node): string | null {
  let out = "";
  for (const part of (word.Parts as Node[]) ?? []) {
    const text = partText(part);
    if (text === null) return null;
    out += text;
  }
  return out;
}

function partText(part: Node): string | null {
  switch (syntax.NodeType(part)) {
    case "Lit":
      return String(part.Value).replace(/\\(.)/gs, "$1").replace(/\\$/, "");
    case "SglQuoted":
      return part.Dollar ? ansiC(String(part.Value)) : String(part.Value);
    case "DblQuoted": {
      let out = "";
      for (const p of (part.Parts as Node[]) ?? []) {
        const t = syntax.NodeType(p) === "Lit" ? String(p.Value).replace(/\\([$`"\\\n])/g, "$1") : partText(p);
        if (t === null) return null;
        out += t;
      }
      return out;
    }
    default:
      // ParamExp, CmdSubst, ArithmExp, ProcSubst, ExtGlob, BraceExp: known only when it runs.
      return null;
  }
}

/** $'…' as bash reads it: \xHH, \uHHHH, octal and the usual letters. */
function ansiC(value: string): string {
  return value.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|.)/g, (_, e: string) => {
    if (/^[xuU]/.test(e)) return String.fromCodePoint(parseInt(e.slice(1), 16));
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8));
    return ({ n: "\n", t: "\t", r: "\r", a: "\u0007", b: "\b", e: "\u001b", E: "\u001b", f: "\f", v: "\v" } as Record<string, string>)[e] ?? e;
  });
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
  xargs: { withValue: ["-I", "-i", "-n", "-P", "-d", "-E", "-e", "-L", "-l", "-s", "-a", "--arg-file", "--delimiter", "--max-args", "--max-procs", "--replace"] },
  chroot: { withValue: [], positional: 1 },
  ionice: { withValue: ["-c", "-n", "-p"] },
  chrt: { withValue: [], positional: 1 },
  taskset: { withValue: [], positional: 1 },
  watch: { withValue: ["-n", "--interval", "-d"] },
  flock: { withValue: ["-w", "--timeout", "-E"], positional: 1 },
};

function partsOf(words: Array<string | null>, stdin: string[], depth: number): ShellPart[] {
  if (words[0] === null) throw new Unresolved("the program it runs comes from a variable or a substitution, known only when it runs");
  const program = words[0]!;
  const name = base(program);
  const args = words.slice(1).map((w) => (w === null ? "$?" : w));
  const here = part([program, ...args]);
  if (name === "eval") throw new Unresolved("eval runs text put together when it runs");
  if (name === "source" || name === ".") throw new Unresolved(`${name} runs the commands of a file, which cannot be checked before`);
  if (name === "alias") throw new Unresolved("an alias changes what later names run");
  if (name === "command" && args.some((a) => a === "-v" || a === "-V")) return [here]; // only says where a program is
  const wrapper = WRAPPERS[name];
  if (wrapper) {
    const rest = afterOptions(args, wrapper.withValue, name === "env" || name === "sudo", wrapper.positional ?? 0);
    if (rest.some((w, i) => i === 0 && w === "$?")) throw new Unresolved(`the program ${name} runs comes from a variable or a substitution`);
    return rest.length ? [here, ...partsOf(rest, stdin, depth)] : [here];
  }
  if (name === "find") {
    const inner: ShellPart[] = [];
    for (let i = 0; i < args.length; i++) {
      if (["-exec", "-execdir", "-ok", "-okdir"].includes(args[i])) {
        const end = args.findIndex((a, j) => j > i && (a === ";" || a === "+"));
        const sub = args.slice(i + 1, end < 0 ? undefined : end);
        if (sub.length) inner.push(...partsOf(sub, [], depth));
        if (end < 0) break;
        i = end;
      }
    }
    return [here, ...inner];
  }
  if (SHELLS.has(name)) return [here, ...shellParts(args, stdin, depth)];
  return [here];
}

/** sh -c BODY, sh SCRIPT ARGS, sh <<<BODY: what a shell runs. */
function shellParts(args: string[], stdin: string[], depth: number): ShellPart[] {
  let i = 0;
  let body: string | null = null;
  let checkOnly = false;
  for (; i < args.length && args[i].startsWith("-") && args[i] !== "-" && args[i] !== "--"; i++) {
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(args[i])) body = args[i + 1] ?? "";
    if (/^-[a-zA-Z]*n[a-zA-Z]*$/.test(args[i])) checkOnly = true;
    if (args[i] === "-o" || args[i] === "+o") i++;
  }
  if (args[i] === "--") i++;
  if (body !== null) {
    if (body === "$?") throw new Unresolved("a shell runs text known only when it runs");
    if (depth >= MAX_DEPTH) throw new Unresolved("shells nested too deep to check");
    const inner = analyzeShell(body, depth + 1);
    if (inner.unresolved) throw new Unresolved(inner.unresolved);
    return inner.parts;
  }
  if (checkOnly) return []; // sh -n: reads the script, runs nothing
  const script = args[i];
  if (script === undefined) {
    if (stdin.length === 0) throw new Unresolved("a shell reads its commands from its input, which cannot be checked before");
    return stdin.flatMap((text) => {
      if (text === "\u0000file") throw new Unresolved("a shell runs the commands of a file, which cannot be checked before");
      if (text === "\u0000dynamic") throw new Unresolved("a shell runs text known only when it runs");
      const inner = analyzeShell(text, depth + 1);
      if (inner.unresolved) throw new Unresolved(inner.unresolved);
      return inner.parts;
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

const SHORT_FLAG_PROGRAMS = new Set(["rm", "cp", "mv", "chmod", "chown", "chgrp", "ln", "mkdir", "rmdir", "ls", "grep", "rsync", "kill", "pkill", "tar", "shred", "truncate"]);

/** A word as it could be typed again: quoted when it holds spaces or shell characters. */
function quoted(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./{}-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

const GIT_GLOBAL_WITH_VALUE = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--super-prefix", "--config-env", "--list-cmds"]);

/** The spellings of one simple command offered to the rules. */
function part(words: string[]): ShellPart {
  const [program, ...args] = words;
  const name = base(program);
  const views = new Set<string>([[program, ...args].map(quoted).join(" "), [name, ...args].map(quoted).join(" ")]);
  // Combined short flags are spelled out only for programs known to take them that way (find's -exec is one flag).
  let normal = SHORT_FLAG_PROGRAMS.has(name) ? args.flatMap((a) => (/^-[A-Za-z]{2,}$/.test(a) ? [...a.slice(1)].map((c) => `-${c}`) : [a])) : [...args];
  if (name === "git") {
    let i = 0;
    while (i < normal.length && normal[i].startsWith("-")) i += GIT_GLOBAL_WITH_VALUE.has(normal[i]) ? 2 : 1;
    normal = normal.slice(i);
  }
  if (name === "rm") {
    normal = normal.map((a) => (a === "--recursive" || a === "-R" ? "-r" : a === "--force" ? "-f" : a));
    const operands = normal.filter((a) => !a.startsWith("-"));
    if (normal.includes("-r") && normal.includes("-f")) views.add(["rm", "-rf", ...operands].join(" "));
  }
  views.add([name, ...normal].map(quoted).join(" "));
  return { text: words.map(quoted).join(" "), views: [...views] };
}
