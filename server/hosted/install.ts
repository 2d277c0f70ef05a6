// Installing a hosted agent's program (docs/hosted-agents.md#installing-a-program):
// an allow-listed npm package at a pinned version, installed with npm into a
// folder of its own, its install scripts not run, and refused unless the
// package npm fetched has the integrity hash Rein pins for that version.
// Nothing of it is ever loaded into Rein's process: it runs only in a run's
// sandbox.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

export interface ProgramPackage {
  /** The npm package, e.g. "@zed-industries/claude-code-acp". */
  name: string;
  version: string;
  /** The package tarball's integrity (sha512) as the registry states it for this version. */
  integrity: string;
  /** Leave out optional dependencies (native extras such as clipboard or audio a sandboxed agent never uses). */
  omitOptional?: boolean;
}

/**
 * The lockfile Rein ships for a package and version (server/hosted/locks): every package of its tree
 * at a fixed version and integrity, so npm installs exactly the tree that was reviewed.
 */
export function lockfileOf(pkg: ProgramPackage): string | null {
  const file = path.join(process.cwd(), "server", "hosted", "locks", `${path.basename(packageFolder(pkg))}.json`);
  return fs.existsSync(file) ? file : null;
}

/** Where programs are installed: REIN_PROGRAMS_DIR, or .rein/programs beside Rein's own Node. */
export function programsDir(): string {
  return process.env.REIN_PROGRAMS_DIR || path.join(process.cwd(), ".rein", "programs");
}

/** The folder of one package at one version. */
export function packageFolder(pkg: ProgramPackage): string {
  return path.join(programsDir(), `${pkg.name.replace(/^@/, "").replace(/\//g, "+")}@${pkg.version}`);
}

const VERIFIED = ".rein-verified";

/** The package's own folder inside its install, when it is installed and was verified. */
export function installedPackage(pkg: ProgramPackage): string | null {
  const root = packageFolder(pkg);
  if (!fs.existsSync(path.join(root, VERIFIED))) return null;
  const dir = path.join(root, "node_modules", pkg.name);
  return fs.existsSync(path.join(dir, "package.json")) ? dir : null;
}

export class ProgramInstallError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ProgramInstallError";
  }
}

/** At most this long for one install. */
const INSTALL_TIMEOUT_MS = 10 * 60_000;

/**
 * Installs the package (once; a verified install is kept). npm runs with no
 * install scripts and without Rein's environment; the install goes to a
 * folder of its own and takes the package's place only once verified.
 */
export async function installProgram(pkg: ProgramPackage, log: { info(m: string): void } = { info: () => {} }): Promise<string> {
  const done = installedPackage(pkg);
  if (done) return done;
  const root = packageFolder(pkg);
  fs.mkdirSync(programsDir(), { recursive: true });
  sweepAbandoned();
  const work = `${root}.installing-${process.pid}-${Date.now()}`;
  fs.mkdirSync(work, { recursive: true });
  try {
    const lock = lockfileOf(pkg);
    const flags = ["--no-audit", "--no-fund", "--ignore-scripts", ...(pkg.omitOptional ? ["--omit=optional"] : [])];
    log.info(`installing ${pkg.name}@${pkg.version} for hosted agents`);
    if (lock) {
      // The whole tree as locked: npm ci refuses a package whose integrity differs from the lockfile's.
      fs.writeFileSync(
        path.join(work, "package.json"),
        JSON.stringify({ name: "rein-hosted-program", private: true, dependencies: { [pkg.name]: pkg.version } }),
      );
      fs.copyFileSync(lock, path.join(work, "package-lock.json"));
      await npm(["ci", ...flags], work);
    } else {
      fs.writeFileSync(path.join(work, "package.json"), JSON.stringify({ name: "rein-hosted-program", private: true }));
      await npm(["install", ...flags, "--save-exact", `${pkg.name}@${pkg.version}`], work);
    }
    verify(pkg, work);
    fs.writeFileSync(path.join(work, VERIFIED), `${pkg.name}@${pkg.version} ${pkg.integrity}\n`);
    // Another process finished the same install meanwhile: its copy may be running already, so it stays.
    const other = installedPackage(pkg);
    if (other) return other;
    fs.rmSync(root, { recursive: true, force: true });
    fs.renameSync(work, root);
    return path.join(root, "node_modules", pkg.name);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** Folders of installs whose process is gone (killed mid-install) are removed. */
function sweepAbandoned() {
  for (const name of fs.readdirSync(programsDir())) {
    const pid = Number(/\.installing-(\d+)-\d+$/.exec(name)?.[1]);
    if (!pid) continue;
    try {
      process.kill(pid, 0);
    } catch {
      fs.rmSync(path.join(programsDir(), name), { recursive: true, force: true });
    }
  }
}

/** The lockfile npm wrote says the package came at the pinned version with the pinned integrity. */
function verify(pkg: ProgramPackage, work: string) {
  let lock: { packages?: Record<string, { version?: string; integrity?: string }> };
  try {
    lock = JSON.parse(fs.readFileSync(path.join(work, "package-lock.json"), "utf8"));
  } catch {
    throw new ProgramInstallError(`npm wrote no readable lockfile for ${pkg.name}@${pkg.version}`);
  }
  const entry = lock.packages?.[`node_modules/${pkg.name}`];
  if (entry?.version !== pkg.version)
    throw new ProgramInstallError(`npm installed ${pkg.name}@${entry?.version ?? "nothing"}, not the pinned ${pkg.version}`);
  if (entry.integrity !== pkg.integrity)
    throw new ProgramInstallError(
      `${pkg.name}@${pkg.version} does not have the integrity Rein pins for it (got ${entry.integrity ?? "none"}); it was not installed`,
    );
}

function npm(args: string[], cwd: string): Promise<void> {
  // npm's own configuration (registry, proxy, cache, a TLS-inspecting proxy's CA) stays; Rein's secrets and settings do not reach it.
  const env: Record<string, string | undefined> = { PATH: process.env.PATH, HOME: process.env.HOME, LANG: "C.UTF-8" };
  for (const [k, v] of Object.entries(process.env))
    if (/^(npm_config_|NPM_CONFIG_|HTTPS?_PROXY$|NO_PROXY$|NODE_EXTRA_CA_CERTS$)/i.test(k)) env[k] = v;
  return new Promise((resolve, reject) => {
    const child = spawn("npm", args, { cwd, env: env as NodeJS.ProcessEnv, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr = (stderr + c.toString("utf8")).slice(-4000)));
    const timer = setTimeout(() => child.kill("SIGKILL"), INSTALL_TIMEOUT_MS);
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(new ProgramInstallError(`npm could not start: ${err.message}`));
    });
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve();
      const last = stderr.trim().split("\n").slice(-3).join(" ");
      reject(new ProgramInstallError(`npm install failed (${signal ?? `exit code ${code}`}): ${last}`));
    });
  });
}
