// The container files cannot drift from the code: Dockerfile, compose.yaml and
// .dockerignore set only variables the registry knows (with values its checks
// accept), run only npm scripts that exist, pin the Node that
// scripts/node-runtime.sh pins, install the system packages
// scripts/ensure-deps.sh installs, and keep the shape several machines need
// (web and worker roles, one shared data directory, Redis with noeviction).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ENV, type EnvName } from "@/server/config";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8");

const dockerfile = read("Dockerfile");
const composeText = read("compose.yaml");
const packageJson = JSON.parse(read("package.json")) as { scripts: Record<string, string> };

// --- the Dockerfile, as instructions ---

interface Instruction {
  keyword: string;
  args: string;
}

/** Instructions with their continuation lines joined; comments dropped. */
function instructionsOf(text: string): Instruction[] {
  const joined = text
    .split("\n")
    .filter((line) => !/^\s*#/.test(line))
    .join("\n")
    .replace(/\\\n/g, " ");
  return joined
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const m = /^([A-Za-z]+)\s+([\s\S]*)$/.exec(line);
      if (!m) throw new Error(`Dockerfile: cannot read the line "${line}"`);
      return { keyword: m[1]!.toUpperCase(), args: m[2]!.trim() };
    });
}

/** The names and values an ENV instruction sets (KEY=value pairs, or the old KEY value form). */
function envOf(args: string): Array<[string, string]> {
  const pairs = [...args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S*)/g)].map(
    (m) => [m[1]!, m[2]!.replace(/^"|"$/g, "")] as [string, string],
  );
  if (pairs.length) return pairs;
  const old = /^([A-Za-z_][A-Za-z0-9_]*)\s+(.*)$/.exec(args);
  return old ? [[old[1]!, old[2]!]] : [];
}

const instructions = instructionsOf(dockerfile);
const of = (keyword: string) => instructions.filter((i) => i.keyword === keyword);
const dockerEnv = of("ENV").flatMap((i) => envOf(i.args));

// --- compose.yaml ---

interface Service {
  image?: string;
  build?: unknown;
  command?: string | string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  volumes?: Array<string | { source?: string; target?: string }>;
  depends_on?: string[] | Record<string, { condition?: string }>;
  healthcheck?: { test?: string | string[]; disable?: boolean };
  deploy?: { replicas?: number };
  ports?: Array<string | number>;
}

const compose = parse(composeText, { merge: true }) as { services: Record<string, Service>; volumes?: Record<string, unknown> };
const services = compose.services;
/** The services built from this repository's Dockerfile: Rein's own processes. */
const reinServices = Object.entries(services).filter(([, s]) => s.build !== undefined);

function environmentOf(s: Service): Record<string, string> {
  if (Array.isArray(s.environment)) {
    return Object.fromEntries(s.environment.map((e) => [e.split("=")[0]!, e.slice(e.indexOf("=") + 1)]));
  }
  return Object.fromEntries(Object.entries(s.environment ?? {}).map(([k, v]) => [k, v === null ? "" : String(v)]));
}

const commandText = (c: string | string[] | undefined) => (Array.isArray(c) ? c.join(" ") : (c ?? ""));

/** A value as compose hands it over: ${X:-default} gives its default, ${X:?message} a stand-in 40 characters long. */
function interpolated(value: string): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?([-?])([^}]*))?\}/g, (_, _name: string, op?: string, rest?: string) =>
    op === "-" ? (rest ?? "") : "x".repeat(40),
  );
}

/** The variables compose reads from the shell: ${X}, ${X:-d}, ${X:?m}. */
const interpolatedNames = (text: string) => new Set([...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!));

/** The named volume a service mounts at `target`. */
function volumeAt(s: Service, target: string): string | undefined {
  for (const v of s.volumes ?? []) {
    if (typeof v === "string") {
      const [source, at] = v.split(":");
      if (at === target) return source;
    } else if (v.target === target) return v.source;
  }
  return undefined;
}

const dependsOn = (s: Service, name: string) => (Array.isArray(s.depends_on) ? undefined : s.depends_on?.[name]?.condition);

// --- the other sources ---

/** `npm run X` in a text. */
const npmRuns = (text: string) => [...text.matchAll(/\bnpm\s+run\s+([A-Za-z0-9:_-]+)/g)].map((m) => m[1]!);

/** The Debian packages of a list in scripts/ensure-deps.sh ("package:check" entries). */
function ensureDepsPackages(list: string): string[] {
  const body = new RegExp(`^${list}=\\(\\n([\\s\\S]*?)^\\)`, "m").exec(read("scripts/ensure-deps.sh"));
  if (!body) throw new Error(`scripts/ensure-deps.sh has no ${list}=( ... )`);
  return [...body[1]!.matchAll(/^\s*"([a-z0-9.+-]+):[^"]*"/gm)].map((m) => m[1]!);
}

const nodeRuntimeVersion = /^REIN_NODE_VERSION=(\d+\.\d+\.\d+)$/m.exec(read("scripts/node-runtime.sh"))?.[1];

describe("the readers of this test", () => {
  it("read what they look for", () => {
    expect(instructionsOf('FROM a AS b\n# c\nRUN x \\\n  y\nENV A=1 B="two words"')).toEqual([
      { keyword: "FROM", args: "a AS b" },
      { keyword: "RUN", args: "x    y" },
      { keyword: "ENV", args: 'A=1 B="two words"' },
    ]);
    expect(envOf('A=1 B="two words"')).toEqual([
      ["A", "1"],
      ["B", "two words"],
    ]);
    expect(envOf("A 1")).toEqual([["A", "1"]]);
    expect(interpolated("u:${P:-rein}@h ${S:?set S}")).toBe(`u:rein@h ${"x".repeat(40)}`);
    expect(npmRuns("RUN npm run db:generate && npm ci; npm  run x")).toEqual(["db:generate", "x"]);
    expect(ensureDepsPackages("up_packages")).toContain("bubblewrap");
    expect(nodeRuntimeVersion).toMatch(/^\d+\./);
    expect(dockerEnv.length).toBeGreaterThan(0);
    expect(reinServices.map(([name]) => name).sort()).toEqual(["migrate", "web", "worker"]);
  });
});

describe("environment variables", () => {
  it("every variable the Dockerfile and Rein's services set is in the registry, with a value its check accepts", () => {
    const set: Array<[string, string, string]> = [
      ...dockerEnv.map(([name, value]) => ["Dockerfile", name, value] as [string, string, string]),
      ...reinServices.flatMap(([service, s]) =>
        Object.entries(environmentOf(s)).map(([name, value]) => [`compose.yaml ${service}`, name, value] as [string, string, string]),
      ),
    ];
    const problems: string[] = [];
    for (const [where, name, value] of set) {
      if (!(name in ENV)) {
        problems.push(`${where}: ${name} is not in server/config/env.ts`);
        continue;
      }
      const v = interpolated(value);
      if (v === "") continue; // empty counts as unset
      const checked = ENV[name as EnvName].schema.safeParse(v);
      if (!checked.success) problems.push(`${where}: ${name}=${value}: ${checked.error.issues.map((i) => i.message).join("; ")}`);
    }
    expect(problems).toEqual([]);
  });

  it("compose reads from the shell only Rein's variables and POSTGRES_PASSWORD", () => {
    const foreign = [...interpolatedNames(composeText)].filter((n) => !(n in ENV) && n !== "POSTGRES_PASSWORD");
    expect(foreign).toEqual([]);
  });

  it("NEXTAUTH_SECRET must be given, with a message saying how", () => {
    for (const name of ["web", "worker"]) {
      expect(environmentOf(services[name]!).NEXTAUTH_SECRET, name).toMatch(/^\$\{NEXTAUTH_SECRET:\?[^}]*NEXTAUTH_SECRET[^}]*\}$/);
    }
  });
});

describe("npm scripts", () => {
  it("every npm run in the Dockerfile and compose.yaml exists in package.json", () => {
    const used = [
      ...npmRuns(instructions.map((i) => i.args).join("\n")),
      ...Object.values(services).flatMap((s) => npmRuns(commandText(s.command))),
    ];
    expect(used).toContain("db:generate");
    expect(used).toContain("db:migrate");
    expect(used.filter((script) => !(script in packageJson.scripts))).toEqual([]);
  });

  it("every scripts/ file the Dockerfile names exists", () => {
    const named = [...dockerfile.matchAll(/\bscripts\/[A-Za-z0-9_.-]+/g)].map((m) => m[0]);
    expect(named).toContain("scripts/build.sh");
    expect(named.filter((f) => !fs.existsSync(path.join(root, f)))).toEqual([]);
  });
});

describe("the Dockerfile", () => {
  it("pins the Node of scripts/node-runtime.sh, in every stage", () => {
    const arg = of("ARG")
      .map((i) => /^NODE_VERSION=(\S+)$/.exec(i.args)?.[1])
      .find(Boolean);
    expect(arg, "ARG NODE_VERSION=<the version of scripts/node-runtime.sh>").toBe(nodeRuntimeVersion);
    expect(arg!.split(".")[0]).toBe(read(".nvmrc").trim());
    const froms = of("FROM");
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const f of froms) expect(f.args, "every stage starts from node:${NODE_VERSION}").toMatch(/^node:\$\{NODE_VERSION\}-/);
  });

  it("installs npm packages, generates both Prisma clients and builds", () => {
    const runs = of("RUN").map((i) => i.args);
    expect(runs.some((r) => /\bnpm ci\b/.test(r))).toBe(true);
    expect(packageJson.scripts["db:generate"]).toContain("prisma/postgres/schema.prisma");
    expect(runs).toContain("npm run db:generate");
    expect(runs).toContain("bash scripts/build.sh");
  });

  it("installs the system packages scripts/ensure-deps.sh installs for runs", () => {
    const apt = of("RUN")
      .map((i) => i.args)
      .filter((r) => r.includes("apt-get install"))
      .join(" ");
    const words = new Set(apt.split(/[\s";]+/));
    const wanted = ensureDepsPackages("up_packages");
    expect(wanted.length).toBeGreaterThan(3);
    expect(wanted.filter((p) => !words.has(p))).toEqual([]);
  });

  it("runs scripts/start.mjs as a user other than root, on port 3000, with a health check", () => {
    expect(of("CMD").at(-1)?.args).toBe('["node", "scripts/start.mjs"]');
    expect(of("USER").at(-1)?.args).not.toMatch(/^(root|0)(:|$)/);
    expect(of("EXPOSE").map((i) => i.args)).toEqual([ENV.PORT.default]);
    expect(of("HEALTHCHECK").at(-1)?.args).toContain("/api/health");
  });

  it("keeps the data directory where compose.yaml mounts it", () => {
    const dataDir = dockerEnv.find(([name]) => name === "REIN_DATA_DIR")?.[1];
    expect(dataDir).toBeDefined();
    expect(volumeAt(services.web!, dataDir!)).toBeDefined();
  });
});

describe("compose.yaml", () => {
  it("runs web and worker processes, sharing the data volume at REIN_DATA_DIR", () => {
    const web = services.web!;
    const worker = services.worker!;
    expect(environmentOf(web).REIN_ROLE).toBe("web");
    expect(environmentOf(worker).REIN_ROLE).toBe("worker");
    const dataDir = environmentOf(web).REIN_DATA_DIR;
    expect(dataDir).toBeTruthy();
    expect(environmentOf(worker).REIN_DATA_DIR).toBe(dataDir);
    const volume = volumeAt(web, dataDir!);
    expect(volume, `web mounts a volume at ${dataDir}`).toBeTruthy();
    expect(volumeAt(worker, dataDir!)).toBe(volume);
    expect(Object.keys(compose.volumes ?? {}), "a named volume, not a folder of one machine").toContain(volume);
    expect(worker.deploy?.replicas ?? 0).toBeGreaterThanOrEqual(2);
    expect(web.ports?.map(String)).toContain("3000:3000");
  });

  it("points both at the PostgreSQL and Redis services", () => {
    for (const name of ["web", "worker", "migrate"]) {
      expect(environmentOf(services[name]!).DATABASE_URL, name).toMatch(/^postgresql:\/\/[^@]+@postgres:5432\//);
    }
    for (const name of ["web", "worker"]) expect(environmentOf(services[name]!).REDIS_URL, name).toBe("redis://redis:6379");
    expect(services.postgres?.image).toMatch(/^postgres:16\b/);
    expect(services.postgres?.healthcheck?.test).toBeDefined();
  });

  it("runs Redis with noeviction and an append-only file", () => {
    const redis = services.redis!;
    expect(redis.image).toMatch(/^redis:7\b/);
    const cmd = commandText(redis.command);
    expect(cmd).toMatch(/--maxmemory-policy\s+noeviction\b/);
    expect(cmd).toMatch(/--appendonly\s+yes\b/);
  });

  it("migrates once, before web and workers start", () => {
    expect(commandText(services.migrate!.command)).toBe("npm run db:migrate");
    expect(dependsOn(services.migrate!, "postgres")).toBe("service_healthy");
    for (const name of ["web", "worker"]) expect(dependsOn(services[name]!, "migrate"), name).toBe("service_completed_successfully");
  });
});

describe(".dockerignore", () => {
  it("keeps local and generated folders out of the build", () => {
    const ignored = new Set(
      read(".dockerignore")
        .split("\n")
        .map((l) => l.trim())
        .filter((l) => l && !l.startsWith("#")),
    );
    const wanted = [
      "node_modules",
      ".next",
      "dist",
      "data",
      ".rein",
      ".git",
      "test-results",
      "playwright-report",
      "server/db/generated",
      "server/db/generated-pg",
      ".env*",
    ];
    expect(wanted.filter((w) => !ignored.has(w))).toEqual([]);
  });
});
