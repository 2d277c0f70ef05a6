// What some programs run besides themselves, for shell.ts: git settings and
// environment variables that name a command to run, and code given inline to
// an interpreter. See docs/security.md#the-policy-reads-command-lines.

/** Pagers and editors that run nothing else; `GIT_PAGER=cat git log` stays an everyday command. */
const HARMLESS_PROGRAMS = new Set(["", "cat", "less", "less -R", "less -FRX", "less -FRSX", "more", "true", ":"]);

/** git settings that change nothing git runs (keys compared in lower case). */
const SAFE_GIT_KEYS = new Set([
  "user.name",
  "user.email",
  "core.quotepath",
  "core.autocrlf",
  "core.safecrlf",
  "core.filemode",
  "core.ignorecase",
  "core.abbrev",
  "core.longpaths",
  "core.precomposeunicode",
  "init.defaultbranch",
  "commit.gpgsign",
  "tag.gpgsign",
  "pull.rebase",
  "pull.ff",
  "merge.ff",
  "merge.conflictstyle",
  "diff.renames",
  "diff.algorithm",
  "diff.noprefix",
  "diff.mnemonicprefix",
  "diff.colormoved",
  "safe.directory",
  "fetch.prune",
  "rebase.autosquash",
  "rebase.autostash",
  "rerere.enabled",
  "gc.auto",
  "protocol.version",
  "push.default",
  "push.autosetupremote",
  "maintenance.auto",
  "column.ui",
  "help.autocorrect",
]);
const SAFE_GIT_SECTIONS = new Set(["color", "advice", "i18n", "log", "status"]);
/** Keys whose value is a program, harmless when it is one of HARMLESS_PROGRAMS. */
const PROGRAM_GIT_KEYS = new Set(["core.pager", "core.editor", "sequence.editor", "credential.helper"]);

/** Why setting `key` to `value` makes git run a command a rule cannot see, or null when it is harmless. */
export function gitSettingRuns(key: string, value: string | null): string | null {
  const lower = key.toLowerCase();
  const dot = lower.indexOf(".");
  const section = dot < 0 ? lower : lower.slice(0, dot);
  if (SAFE_GIT_KEYS.has(lower) || SAFE_GIT_SECTIONS.has(section)) return null;
  if ((PROGRAM_GIT_KEYS.has(lower) || section === "pager") && value !== null && HARMLESS_PROGRAMS.has(value.trim())) return null;
  return `the git setting ${key} can define or run a command (an alias, a pager, an editor, a helper, a hook), known only when it runs`;
}

/** Options of `git config` that only read or remove. */
const GIT_CONFIG_READS = new Set([
  "--get",
  "--get-all",
  "--get-regexp",
  "--get-urlmatch",
  "--get-color",
  "--get-colorbool",
  "-l",
  "--list",
  "--unset",
  "--unset-all",
  "--remove-section",
  "-e",
  "--edit",
  "--show-origin",
  "--show-scope",
]);
const GIT_CONFIG_WITH_VALUE = new Set(["-f", "--file", "--blob", "--type", "--default", "--comment", "--value"]);

/** Why a `git …` call defines or runs a command through git's settings, or null. `args` follow the word git. */
export function gitRunsHidden(args: string[]): string | null {
  let i = 0;
  for (; i < args.length && args[i].startsWith("-"); i++) {
    const a = args[i];
    const inline = /^(-c|--config-env)=?(.*)$/.exec(a);
    if (a === "-c" || a === "--config-env" || (inline && inline[2] && a.startsWith("--config-env="))) {
      const setting = a.startsWith("--config-env=") ? inline![2] : (args[++i] ?? "");
      const eq = setting.indexOf("=");
      // --config-env takes the value from a variable: never known here.
      const why = gitSettingRuns(
        eq < 0 ? setting : setting.slice(0, eq),
        a.startsWith("--config-env") ? null : eq < 0 ? "" : setting.slice(eq + 1),
      );
      if (why) return why;
    } else if (a.startsWith("--exec-path=")) return "git --exec-path runs git's helpers from a folder the command names";
    else if (["-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--list-cmds"].includes(a)) i++;
  }
  if (args[i] !== "config") return null;
  // git config KEY VALUE (or `git config set KEY VALUE`) writes a setting later git calls obey.
  const rest = args.slice(i + 1);
  if (rest[0] === "set") rest.shift();
  else if (/^(get|list|unset|remove-section|rename-section|edit)$/.test(rest[0] ?? "")) return null;
  const words: string[] = [];
  for (let j = 0; j < rest.length; j++) {
    if (GIT_CONFIG_READS.has(rest[j])) return null;
    if (GIT_CONFIG_WITH_VALUE.has(rest[j])) j++;
    else if (!rest[j].startsWith("-")) words.push(rest[j]);
  }
  return words.length >= 2 ? gitSettingRuns(words[0], words[1]) : null;
}

/** Environment variables that make a program run another command (git's and the shell's), harmless when set to a HARMLESS_PROGRAMS value. */
const PROGRAM_VARIABLES = new Set(["GIT_PAGER", "PAGER", "GIT_EDITOR", "EDITOR", "VISUAL", "GIT_SEQUENCE_EDITOR"]);
const COMMAND_VARIABLES = new Set([
  "GIT_CONFIG_PARAMETERS",
  "GIT_CONFIG_COUNT",
  "GIT_CONFIG",
  "GIT_CONFIG_GLOBAL",
  "GIT_CONFIG_SYSTEM",
  "GIT_EXEC_PATH",
  "GIT_SSH",
  "GIT_SSH_COMMAND",
  "GIT_PROXY_COMMAND",
  "GIT_ASKPASS",
  "SSH_ASKPASS",
  "GIT_EXTERNAL_DIFF",
  "GIT_TEMPLATE_DIR",
  // Read by every bash that runs a script, and by the loader of every program (ENV and PROMPT_COMMAND only act on interactive shells).
  "BASH_ENV",
  "LD_PRELOAD",
  "LD_AUDIT",
]);

/** Why setting the variable `name` to `value` runs a command a rule cannot see, or null. */
export function variableRuns(name: string, value: string | null): string | null {
  if (PROGRAM_VARIABLES.has(name) && value !== null && HARMLESS_PROGRAMS.has(value.trim())) return null;
  if (/^GIT_CONFIG_(GLOBAL|SYSTEM)$/.test(name) && value === "/dev/null") return null;
  if (PROGRAM_VARIABLES.has(name) || COMMAND_VARIABLES.has(name) || /^GIT_CONFIG_(KEY|VALUE)_\d+$/.test(name)) {
    return `it sets ${name}, which names a command or settings a program runs, known only when it runs`;
  }
  return null;
}

interface Interpreter {
  /** The canonical flag the code is offered with. */
  flag: "-c" | "-e" | "-r";
  /** Short options that carry the code (alone or at the end of a cluster, `perl -ne`). */
  code: string;
  /** Short options that take the rest of their cluster as a value (`perl -i.bak`, `ruby -rjson`). */
  rest: string;
  /** Options whose value is the next word. */
  withValue: string[];
  /** python -m: the code of a module runs, a file. */
  module?: string;
}

const INTERPRETERS: Array<[RegExp, Interpreter]> = [
  [/^(python|pypy)[0-9.]*$/, { flag: "-c", code: "c", rest: "WX", withValue: ["-W", "-X", "--check-hash-based-pycs"], module: "m" }],
  [/^php[0-9.]*$/, { flag: "-r", code: "rRBE", rest: "cdzt", withValue: ["-c", "-d", "-z", "-t"] }],
  [/^perl[0-9.]*$/, { flag: "-e", code: "eE", rest: "iIMmx0dDC", withValue: ["-I", "-M", "-m"] }],
  [/^ruby[0-9.]*$/, { flag: "-e", code: "e", rest: "rIECFTWKxi0", withValue: ["-r", "-I", "-E", "-C"] }],
  [
    /^(node|nodejs|bun)$/,
    {
      flag: "-e",
      code: "ep",
      rest: "",
      withValue: [
        "-r",
        "-C",
        "--require",
        "--import",
        "--loader",
        "--experimental-loader",
        "--conditions",
        "--input-type",
        "--env-file",
        "--title",
      ],
    },
  ],
  [/^(lua[0-9.]*|luajit)$/, { flag: "-e", code: "e", rest: "l", withValue: ["-l"] }],
  [/^(Rscript|osascript)$/, { flag: "-e", code: "e", rest: "", withValue: [] }],
];

/**
 * The canonical spelling `NAME FLAG CODE` (`python3 -c CODE`, `php -r CODE`,
 * `node -e CODE`) of an interpreter given its code on the command line (a flag,
 * a here-string or a here-document), or null when it runs a file or a module:
 * that is a limit (docs/security.md#the-policy-reads-command-lines).
 */
export function inlineCode(name: string, args: string[], stdin: string[]): { flag: string; code: string } | null {
  if (name === "deno") return args[0] === "eval" ? { flag: "-e", code: args.slice(1).find((a) => !a.startsWith("-")) ?? "" } : null;
  const it = INTERPRETERS.find(([re]) => re.test(name))?.[1];
  if (!it) return null;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--") return null;
    if (a === "-") return { flag: it.flag, code: stdin.join("\n") };
    if (!a.startsWith("-")) return null; // a script runs: beyond the command line
    const long = /^--(eval|print|run)(=(.*))?$/s.exec(a);
    if (long) return { flag: it.flag, code: long[2] ? long[3] : (args[i + 1] ?? "") };
    if (it.withValue.includes(a)) {
      i++;
      continue;
    }
    if (a.startsWith("--")) continue;
    for (let j = 1; j < a.length; j++) {
      if (it.code.includes(a[j])) return { flag: it.flag, code: j + 1 < a.length ? a.slice(j + 1) : (args[i + 1] ?? "") };
      if (it.module?.includes(a[j])) return null;
      if (it.rest.includes(a[j])) break;
    }
  }
  // No script named: the code comes from the input, read here when it is a here-string or a here-document.
  return stdin.length > 0 && !stdin.includes("\u0000file") ? { flag: it.flag, code: stdin.join("\n") } : null;
}
