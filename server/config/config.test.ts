import { spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { acquireDataDirLock, ConfigError, DataDirLockedError, defaultInternalUrl, loadConfig, loadDataConfig } from "./index";

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "..", "..");

const SECRET = "s".repeat(40);

/** An environment holding only `vars` (Next's types make NODE_ENV required). */
function env(vars: Record<string, string>): NodeJS.ProcessEnv {
  return vars as NodeJS.ProcessEnv;
}

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "rein-config-test-"));
});
afterEach(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error("expected a ConfigError, but nothing was thrown");
}

describe("loadConfig", () => {
  it("applies the defaults, with the data directory ./data relative to the working directory", () => {
    const cwd = process.cwd();
    process.chdir(tmp);
    try {
      const cfg = loadConfig(env({ NEXTAUTH_SECRET: SECRET }));
      const dataDir = path.join(fs.realpathSync(tmp), "data");
      expect(fs.realpathSync(cfg.dataDir)).toBe(dataDir);
      expect(fs.statSync(dataDir).isDirectory()).toBe(true);
      expect(cfg.port).toBe(3000);
      expect(cfg.host).toBe("0.0.0.0");
      expect(cfg.ui).toBe(true);
      expect(cfg.workers).toBe(4);
      expect(cfg.scriptedDelayMs).toBe(40);
      expect(cfg.databaseUrl).toBe(`file:${path.join(cfg.dataDir, "rein.db")}`);
      expect(cfg.publicUrl).toBe("http://localhost:3000");
      expect(cfg.adminEmail).toBeUndefined();
      expect(cfg.adminPassword).toBeUndefined();
      expect(cfg.authSecret).toBe(SECRET);
    } finally {
      process.chdir(cwd);
    }
  });

  it("reads every setting from the environment", () => {
    const cfg = loadConfig(
      env({
        PORT: "4123",
        REIN_DATA_DIR: tmp,
        REIN_ADMIN_EMAIL: "admin@example.com",
        REIN_ADMIN_PASSWORD: "correct horse battery",
        REIN_UI: "off",
        REIN_WORKERS: "2",
        REIN_SCRIPTED_DELAY_MS: "5",
        NEXTAUTH_SECRET: SECRET,
        DATABASE_URL: "file:/somewhere/else.db",
      }),
    );
    expect(cfg.port).toBe(4123);
    expect(cfg.dataDir).toBe(path.resolve(tmp));
    expect(cfg.adminEmail).toBe("admin@example.com");
    expect(cfg.adminPassword).toBe("correct horse battery");
    expect(cfg.ui).toBe(false);
    expect(cfg.workers).toBe(2);
    expect(cfg.scriptedDelayMs).toBe(5);
    expect(cfg.databaseUrl).toBe("file:/somewhere/else.db");
    expect(cfg.publicUrl).toBe("http://localhost:4123");
  });

  it("reads a web or worker process of several machines: PostgreSQL, Redis and the role", () => {
    const base = {
      REIN_DATA_DIR: tmp,
      NEXTAUTH_SECRET: SECRET,
      DATABASE_URL: "postgresql://rein@db:5432/rein",
      REDIS_URL: "redis://cache:6379",
    };
    expect(loadConfig(env({ ...base, REIN_ROLE: "web" }))).toMatchObject({
      role: "web",
      redisUrl: "redis://cache:6379",
      databaseUrl: base.DATABASE_URL,
    });
    expect(loadConfig(env({ ...base, REIN_ROLE: "worker" })).role).toBe("worker");
    expect(loadConfig(env({ REIN_DATA_DIR: tmp, NEXTAUTH_SECRET: SECRET, DATABASE_URL: base.DATABASE_URL }))).toMatchObject({
      role: "all",
      redisUrl: undefined,
    });
    expect(configError(() => loadConfig(env(base))).problems).toEqual([
      expect.stringMatching(/^REIN_ROLE: with REDIS_URL set, each process is either "web"/),
    ]);
  });

  it("gives a worker the address web processes reach its desktops at: REIN_INTERNAL_URL, else HOST or the machine's name", () => {
    const base = {
      REIN_DATA_DIR: tmp,
      NEXTAUTH_SECRET: SECRET,
      DATABASE_URL: "postgresql://rein@db:5432/rein",
      REDIS_URL: "redis://cache:6379",
      REIN_ROLE: "worker",
    };
    expect(loadConfig(env({ ...base, REIN_INTERNAL_URL: "http://worker-1:3000" })).internalUrl).toBe("http://worker-1:3000");
    expect(loadConfig(env({ ...base, HOST: "10.0.0.7", PORT: "3100" })).internalUrl).toBe("http://10.0.0.7:3100");
    expect(loadConfig(env(base)).internalUrl).toBe(`http://${os.hostname()}:3000`);
    expect(defaultInternalUrl("::", 3000, "worker-2")).toBe("http://worker-2:3000");
    expect(defaultInternalUrl("fd00::7", 3000)).toBe("http://[fd00::7]:3000");
    expect(configError(() => loadConfig(env({ ...base, REIN_INTERNAL_URL: "worker-1:3000" }))).problems).toEqual([
      expect.stringMatching(/^REIN_INTERNAL_URL/),
    ]);
  });

  it("treats empty variables as unset", () => {
    const cfg = loadConfig(env({ PORT: "", REIN_UI: "", REIN_DATA_DIR: tmp, NEXTAUTH_SECRET: SECRET }));
    expect(cfg.port).toBe(3000);
    expect(cfg.ui).toBe(true);
  });

  it("refuses a PORT that is not a number, naming PORT", () => {
    const err = configError(() => loadConfig(env({ PORT: "abc", REIN_DATA_DIR: tmp, NEXTAUTH_SECRET: SECRET })));
    expect(err.problems.some((p) => p.startsWith("PORT"))).toBe(true);
    expect(err.message).toContain("PORT");
    expect(err.message).toMatch(/configuration is invalid/);
  });

  it("refuses a PORT out of range", () => {
    const err = configError(() => loadConfig(env({ PORT: "70000", REIN_DATA_DIR: tmp, NEXTAUTH_SECRET: SECRET })));
    expect(err.message).toContain("PORT");
  });

  it("lists every problem at once", () => {
    const err = configError(() =>
      loadConfig(env({ PORT: "abc", REIN_UI: "maybe", REIN_WORKERS: "0", REIN_DATA_DIR: tmp, NEXTAUTH_SECRET: SECRET })),
    );
    const named = err.problems.map((p) => p.split(":")[0]);
    expect(named).toEqual(expect.arrayContaining(["PORT", "REIN_UI", "REIN_WORKERS"]));
  });

  it("refuses REIN_ADMIN_PASSWORD without REIN_ADMIN_EMAIL", () => {
    const err = configError(() =>
      loadConfig(env({ REIN_ADMIN_PASSWORD: "long enough password", REIN_DATA_DIR: tmp, NEXTAUTH_SECRET: SECRET })),
    );
    expect(err.message).toContain("REIN_ADMIN_EMAIL");
  });

  it("refuses a short admin password", () => {
    const err = configError(() =>
      loadConfig(
        env({
          REIN_ADMIN_EMAIL: "admin@example.com",
          REIN_ADMIN_PASSWORD: "short",
          REIN_DATA_DIR: tmp,
          NEXTAUTH_SECRET: SECRET,
        }),
      ),
    );
    expect(err.message).toContain("REIN_ADMIN_PASSWORD");
  });

  it("refuses an admin email that is not an email address", () => {
    const err = configError(() => loadConfig(env({ REIN_ADMIN_EMAIL: "admin", REIN_DATA_DIR: tmp, NEXTAUTH_SECRET: SECRET })));
    expect(err.message).toContain("REIN_ADMIN_EMAIL");
  });

  it("refuses a short NEXTAUTH_SECRET", () => {
    const err = configError(() => loadConfig(env({ NEXTAUTH_SECRET: "short", REIN_DATA_DIR: tmp })));
    expect(err.message).toContain("NEXTAUTH_SECRET");
  });

  it("refuses a data directory it cannot create", () => {
    const file = path.join(tmp, "a-file");
    fs.writeFileSync(file, "");
    const err = configError(() => loadConfig(env({ REIN_DATA_DIR: path.join(file, "data"), NEXTAUTH_SECRET: SECRET })));
    expect(err.message).toContain("REIN_DATA_DIR");
  });

  it("without NEXTAUTH_SECRET creates a key file in the data directory and reuses it", () => {
    const before = new Set(fs.readdirSync(tmp));
    const first = loadConfig(env({ REIN_DATA_DIR: tmp }));
    const created = fs.readdirSync(tmp).filter((f) => !before.has(f));
    expect(created).toHaveLength(1);
    const keyFile = path.join(tmp, created[0]!);
    expect(fs.readFileSync(keyFile, "utf8").trim()).toBe(first.authSecret);
    expect(first.authSecret.length).toBeGreaterThanOrEqual(32);
    expect(fs.statSync(keyFile).mode & 0o077).toBe(0); // readable by the owner only

    const second = loadConfig(env({ REIN_DATA_DIR: tmp }));
    expect(second.authSecret).toBe(first.authSecret);
    expect(fs.readdirSync(tmp).filter((f) => !before.has(f))).toEqual(created);
  });

  it("uses NEXTAUTH_SECRET when it is set and writes no key file", () => {
    const cfg = loadConfig(env({ REIN_DATA_DIR: tmp, NEXTAUTH_SECRET: SECRET }));
    expect(cfg.authSecret).toBe(SECRET);
    expect(fs.readdirSync(tmp)).toEqual([]);
  });
});

describe("loadDataConfig (the CLI's commands that open the database)", () => {
  it("reads where the data is, whatever a server's other settings say, and checks only those two variables", () => {
    // An operator's shell on a worker host: Redis set, no role; the server would refuse to start.
    const shell = { REIN_DATA_DIR: tmp, REDIS_URL: "redis://cache:6379", PORT: "not a port" };
    expect(loadDataConfig(env(shell))).toEqual({
      dataDir: path.resolve(tmp),
      databaseUrl: `file:${path.join(path.resolve(tmp), "rein.db")}`,
    });
    expect(loadDataConfig(env({ ...shell, DATABASE_URL: "postgresql://rein@db:5432/rein" })).databaseUrl).toBe(
      "postgresql://rein@db:5432/rein",
    );
    expect(configError(() => loadDataConfig(env({ ...shell, DATABASE_URL: "mysql://db/rein" }))).problems).toEqual([
      expect.stringMatching(/^DATABASE_URL: /),
    ]);
    fs.writeFileSync(path.join(tmp, "a-file"), "");
    expect(configError(() => loadDataConfig(env({ REIN_DATA_DIR: path.join(tmp, "a-file", "data") }))).problems).toEqual([
      expect.stringMatching(/^REIN_DATA_DIR: cannot write to /),
    ]);
  });
});

describe("loadConfig checks the variables other modules read", () => {
  const KEY = crypto.randomBytes(32).toString("base64");
  const LINK_SECRET = crypto.randomBytes(32).toString("base64url");
  const LINK_KEYS = JSON.stringify({ version: 1, current: { kid: "k1", secret: LINK_SECRET, createdAt: "2025-01-01T00:00:00.000Z" } });

  it.each([
    ["REIN_HITL_LADDER", "24h,48h", /needs three durations/],
    ["REIN_HITL_LADDER", "soon,48h,7d", /"soon" is not a duration/],
    ["REIN_HITL_LADDER", "7d,8d,1d", /hard cap must not be shorter than level 1/],
    ["REIN_PROVIDER_RPS", "openai", /"openai" is not provider=requests-per-second/],
    ["REIN_PROVIDER_RPS", "openai=0", /is not provider=requests-per-second/],
    ["REIN_DESKTOP_POOL_SIZE", "17", /whole number from 0 to 16/],
    ["REIN_DESKTOP_POOL_SIZE", "many", /whole number from 0 to 16/],
    ["REIN_SECRET_KEY", "c2hvcnQga2V5", /must hold 32 bytes/],
    ["REIN_LINK_KEYS", `{"version":1,"current":{"secret":"${LINK_SECRET}"`, /is not JSON/],
    ["REIN_LINK_KEYS", JSON.stringify({ version: 2 }), /is not a valid link key file/],
    ["REIN_OTLP_ENDPOINT", "collector:4318", /must start with http:\/\/ or https:\/\//],
    ["REIN_OTLP_ENDPOINT", "not a url", /must be a URL/],
    ["REIN_FAILPOINTS", "after-tool:1", /is not name:n/],
    ["REIN_FAILPOINTS", "after-tool-executed:0", /is not name:n/],
    ["REIN_LOGIN_BACKOFF_MS", "fast", /must be a whole number from 1 to 3600000/],
    ["REIN_LOGIN_BACKOFF_MS", "0", /must be a whole number from 1 to 3600000/],
    ["DATABASE_URL", "mysql://db/rein", /must be file:<path> \(SQLite\) or postgresql:/],
    ["REDIS_URL", "127.0.0.1:6379", /must be redis:\/\/host:port/],
    ["REDIS_URL", "redis://127.0.0.1:6379", /several machines need PostgreSQL/],
    ["REIN_ROLE", "worker", /needs the others: set REDIS_URL/],
    ["REIN_ROLE", "leader", /must be "all", "web" or "worker"/],
    ["NEXTAUTH_URL", "localhost", /must be a URL/],
    ["REIN_PUBLIC_URL", "ftp://example.com", /must start with http/],
  ])("refuses %s=%j with a problem naming it", (name, value, message) => {
    const err = configError(() => loadConfig(env({ REIN_DATA_DIR: tmp, NEXTAUTH_SECRET: SECRET, [name]: value })));
    expect(err.problems).toHaveLength(1);
    expect(err.problems[0]).toMatch(new RegExp(`^${name}: `));
    expect(err.problems[0]).toMatch(message);
    // A key's value never shows in the message.
    if (name === "REIN_SECRET_KEY" || name === "REIN_LINK_KEYS") {
      expect(err.message).not.toContain(value);
      expect(err.message).not.toContain(LINK_SECRET);
    }
  });

  it("accepts good values of them", () => {
    const cfg = loadConfig(
      env({
        REIN_DATA_DIR: tmp,
        NEXTAUTH_SECRET: SECRET,
        REIN_HITL_LADDER: "1h,2h,1d",
        REIN_PROVIDER_RPS: "openai=5,anthropic=0.5",
        REIN_DESKTOP_POOL_SIZE: "0",
        REIN_SECRET_KEY: KEY,
        REIN_LINK_KEYS: LINK_KEYS,
        REIN_OTLP_ENDPOINT: "http://collector:4318/v1/traces",
        REIN_FAILPOINTS: "after-tool-executed:2",
        REIN_LOGIN_BACKOFF_MS: "20",
        NEXTAUTH_URL: "https://rein.example.com",
        NODE_ENV: "production",
      }),
    );
    expect(cfg.dataDir).toBe(path.resolve(tmp));
  });

  it("ignores the CLI's and the tests' variables the server does not read", () => {
    expect(() => loadConfig(env({ REIN_DATA_DIR: tmp, NEXTAUTH_SECRET: SECRET, REIN_URL: "not a url", BENCH_N: "many" }))).not.toThrow();
  });
});

/** A second process that takes the lock on `dir` and holds it until killed. */
async function lockHolder(dir: string): Promise<ChildProcess> {
  const script = path.join(tmp, "hold-lock.mts");
  const lockModule = path.join(here, "lock.ts");
  fs.writeFileSync(
    script,
    `import { acquireDataDirLock } from ${JSON.stringify(lockModule)};
const lock = acquireDataDirLock(${JSON.stringify(dir)});
process.on("SIGTERM", () => { lock.release(); process.exit(0); });
console.log("locked");
setInterval(() => {}, 1000);
`,
  );
  const child = spawn(process.execPath, ["--import", "tsx", script], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let out = "";
    let errOut = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("locked")) resolve();
    });
    child.stderr!.on("data", (d: Buffer) => (errOut += d.toString()));
    child.on("exit", (code) => reject(new Error(`lock holder exited early (${code}): ${errOut}`)));
    child.on("error", reject);
  });
  return child;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

describe("acquireDataDirLock", () => {
  const children: ChildProcess[] = [];
  afterEach(async () => {
    for (const c of children.splice(0)) {
      c.kill("SIGKILL");
      await exited(c);
    }
  });

  it("refuses a second server while the first one's process is alive", async () => {
    const holder = await lockHolder(tmp);
    children.push(holder);

    let error: unknown;
    try {
      acquireDataDirLock(tmp);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(DataDirLockedError);
    const message = (error as Error).message;
    expect(message).toContain(`pid ${holder.pid}`);
    expect(message).toContain(tmp);
    expect(message).toContain("REIN_DATA_DIR");
    // The holder's lock file is left alone.
    expect(fs.readFileSync(path.join(tmp, "server.pid"), "utf8").trim()).toBe(String(holder.pid));
  });

  it("can be taken once the holder released it", async () => {
    const holder = await lockHolder(tmp);
    children.push(holder);
    holder.kill("SIGTERM"); // releases the lock, then exits
    await exited(holder);
    expect(fs.existsSync(path.join(tmp, "server.pid"))).toBe(false);

    const lock = acquireDataDirLock(tmp);
    expect(fs.readFileSync(path.join(tmp, "server.pid"), "utf8").trim()).toBe(String(process.pid));
    lock.release();
    expect(fs.existsSync(path.join(tmp, "server.pid"))).toBe(false);
  });

  it("can be taken again in the same process after release", () => {
    const first = acquireDataDirLock(tmp);
    first.release();
    const second = acquireDataDirLock(tmp);
    expect(fs.readFileSync(path.join(tmp, "server.pid"), "utf8").trim()).toBe(String(process.pid));
    second.release();
  });

  it("takes over a stale lock file naming a dead process", async () => {
    const holder = await lockHolder(tmp);
    children.push(holder);
    const deadPid = holder.pid!;
    holder.kill("SIGKILL"); // dies without releasing
    await exited(holder);
    expect(fs.readFileSync(path.join(tmp, "server.pid"), "utf8").trim()).toBe(String(deadPid));
    expect(() => process.kill(deadPid, 0)).toThrow();

    const lock = acquireDataDirLock(tmp);
    expect(fs.readFileSync(path.join(tmp, "server.pid"), "utf8").trim()).toBe(String(process.pid));
    lock.release();
  });

  it("release leaves a lock file alone that another process has taken since", () => {
    const lock = acquireDataDirLock(tmp);
    fs.writeFileSync(path.join(tmp, "server.pid"), "999999999");
    lock.release();
    expect(fs.readFileSync(path.join(tmp, "server.pid"), "utf8")).toBe("999999999");
  });
});
