// The environment variable a secret reaches a tool's process as.
import { SecretValidationError } from "./types";

/** The secret's name in capitals, other characters as "_" ("deploy/token" → DEPLOY_TOKEN). */
export function envNameOf(name: string): string {
  return name.toUpperCase().replace(/[^A-Z0-9_]/g, "_");
}

/** Variables the shell and its programs depend on; a secret may not replace them. */
const RESERVED_ENV = new Set([
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "PWD",
  "OLDPWD",
  "TERM",
  "LANG",
  "HOSTNAME",
  "IFS",
  "TMPDIR",
  "PS0",
  "PS1",
  "PS2",
  "PS4",
  "PROMPT_COMMAND",
  "HISTFILE",
  "ENV",
  "PAGER",
  "GIT_PAGER",
  "GIT_AUTHOR_NAME",
  "GIT_AUTHOR_EMAIL",
  "GIT_COMMITTER_NAME",
  "GIT_COMMITTER_EMAIL",
]);
const RESERVED_PREFIXES = ["BASH", "LD_", "LC_"];

/** Refuses a secret whose variable would replace one of the shell's own. */
export function checkEnvName(name: string): void {
  const env = envNameOf(name);
  if (RESERVED_ENV.has(env) || RESERVED_PREFIXES.some((p) => env.startsWith(p))) {
    throw new SecretValidationError(`The secret "${name}" would replace the shell's ${env} variable; give it another name`);
  }
}
