// The repository registry (docs/changes.md): git repositories agents
// may propose changes to. Only admins register, change and archive them; a
// team's repository is seen by its members (and admins), a team-less one by
// everyone. Every change is audited.
import fs from "node:fs";
import crypto from "node:crypto";
import path from "node:path";
import { z } from "zod";
import { recordAudit } from "@/server/audit";
import type { Db } from "@/server/db";
import type { Actor } from "@/server/identity";
import { ProtectedPaths, ProtectedPathError } from "../changes";
import { RepositoryError, repositoryNotFound } from "./errors";
import { git } from "./git";
import { assertNotRunningCheckout, branchCommit, cloneDirOf, localGitDir, parseSource } from "./source";

export interface RegistryDeps {
  db: Db;
  dataDir: string;
  /** The server's own working tree, which no repository may be (default: the process's working directory). */
  runningCheckout?: string;
}

/** Who acts, and from where (the audit log's channel: admin for the UI, api, cli). */
export interface RepositoryActor {
  actor: Actor;
  channel: string;
}

const BRANCH = z
  .string()
  .trim()
  .min(1, "a branch name is needed")
  .max(200)
  .refine(
    (b) =>
      /^[A-Za-z0-9._/-]+$/.test(b) &&
      !b.startsWith("-") &&
      !b.startsWith("/") &&
      !b.endsWith("/") &&
      !b.endsWith(".lock") &&
      !b.includes("..") &&
      !b.includes("//"),
    "not a branch name git accepts",
  );

const FIELDS = {
  name: z
    .string()
    .trim()
    .regex(
      /^[a-z0-9][a-z0-9._-]{0,62}$/,
      "lower-case letters, digits, dots, dashes and underscores, at most 63, starting with a letter or digit",
    ),
  source: z.string().trim().min(1, "a local path or a git URL is needed").max(2000),
  defaultBranch: BRANCH,
  testCommand: z.string().trim().min(1, "a test command is needed").max(2000),
  testTimeoutSec: z.number().int().min(5).max(3600),
  protectedPaths: z.array(z.string().max(300)).max(200),
  evalDatasetId: z.string().min(1).max(100).nullable(),
  teamId: z.string().min(1).max(100).nullable(),
};

export const RepositoryInput = z
  .object({
    ...FIELDS,
    defaultBranch: FIELDS.defaultBranch.default("main"),
    testTimeoutSec: FIELDS.testTimeoutSec.default(600),
    protectedPaths: FIELDS.protectedPaths.default([]),
    evalDatasetId: FIELDS.evalDatasetId.default(null),
    teamId: FIELDS.teamId.default(null),
  })
  .strict();

/** A change to a repository: any field but its source, which never changes. */
export const RepositoryPatch = z.object(FIELDS).omit({ source: true }).partial().strict();

export type RepositoryRow = {
  id: string;
  name: string;
  source: string;
  defaultBranch: string;
  testCommand: string;
  testTimeoutSec: number;
  protectedPaths: string;
  evalDatasetId: string | null;
  teamId: string | null;
  builtIn: boolean;
  createdById: string | null;
  createdAt: Date;
  updatedAt: Date;
  archivedAt: Date | null;
};

const ROW_SELECT = {
  id: true,
  name: true,
  source: true,
  defaultBranch: true,
  testCommand: true,
  testTimeoutSec: true,
  protectedPaths: true,
  evalDatasetId: true,
  teamId: true,
  builtIn: true,
  createdById: true,
  createdAt: true,
  updatedAt: true,
  archivedAt: true,
} as const;

export interface RepositoryView extends Omit<RepositoryRow, "protectedPaths" | "archivedAt"> {
  kind: "path" | "url";
  protectedPaths: string[];
  archived: boolean;
}

export function protectedPathsOf(row: Pick<RepositoryRow, "protectedPaths">): string[] {
  try {
    const v: unknown = JSON.parse(row.protectedPaths);
    return Array.isArray(v) ? v.filter((g): g is string => typeof g === "string") : [];
  } catch {
    return [];
  }
}

const view = (r: RepositoryRow): RepositoryView => {
  const { archivedAt, ...rest } = r;
  return { ...rest, kind: r.source.startsWith("/") ? "path" : "url", protectedPaths: protectedPathsOf(r), archived: archivedAt !== null };
};

function problemsOf(err: z.ZodError): Array<{ field: string; message: string }> {
  return err.issues.map((i) => ({ field: i.path.join(".") || "(input)", message: `${i.path.join(".") || "input"}: ${i.message}` }));
}

function invalid(problems: Array<{ field: string; message: string }>): RepositoryError {
  return new RepositoryError(
    "INVALID_INPUT",
    `The repository has ${problems.length === 1 ? "a problem" : `${problems.length} problems`}: ${problems
      .slice(0, 10)
      .map((p) => p.message)
      .join("; ")}`,
    problems,
  );
}

function requireAdmin(who: RepositoryActor, doing: string) {
  if (who.actor.role !== "admin") throw new RepositoryError("FORBIDDEN", `${doing} a repository needs an admin`);
}

/** The protected-path globs must compile; a bad one is named. */
function checkGlobs(globs: string[]) {
  try {
    new ProtectedPaths(globs);
  } catch (err) {
    if (err instanceof ProtectedPathError) throw invalid([{ field: "protectedPaths", message: `protectedPaths: ${err.message}` }]);
    throw err;
  }
}

async function checkRefs(db: Db, input: { teamId?: string | null; evalDatasetId?: string | null }) {
  const problems: Array<{ field: string; message: string }> = [];
  if (input.teamId && !(await db.team.findUnique({ where: { id: input.teamId }, select: { id: true } })))
    problems.push({ field: "teamId", message: `teamId: there is no team ${input.teamId}` });
  if (input.evalDatasetId && !(await db.dataset.findUnique({ where: { id: input.evalDatasetId }, select: { id: true } })))
    problems.push({ field: "evalDatasetId", message: `evalDatasetId: there is no dataset ${input.evalDatasetId}` });
  if (problems.length) throw invalid(problems);
}

async function nameTaken(db: Db, name: string, except?: string) {
  const row = await db.repository.findUnique({ where: { name }, select: { id: true } });
  if (row && row.id !== except)
    throw new RepositoryError("CONFLICT", `There is already a repository named ${name}; pick another name`, [
      { field: "name", message: `name ${name} is taken` },
    ]);
}

async function audit(db: Db, who: RepositoryActor, kind: string, row: { id: string; name: string }, detail: Record<string, unknown> = {}) {
  await recordAudit(db, {
    kind,
    actorId: who.actor.userId,
    actorName: who.actor.name || who.actor.email,
    channel: who.channel,
    subject: row.name,
    detail: { repositoryId: row.id, name: row.name, ...detail },
  });
}

export const newRepositoryId = () => `repo${crypto.randomBytes(10).toString("hex")}`;

/**
 * Checks the source and, for a URL, clones it bare into the data directory.
 * Returns the directory to remove if what follows fails (null for a local path).
 */
async function prepareSource(deps: RegistryDeps, id: string, source: string, branch: string): Promise<string | null> {
  const parsed = parseSource(source);
  if (parsed.kind === "path") {
    await assertNotRunningCheckout(parsed.path, deps.runningCheckout ?? process.cwd());
    const gitDir = await localGitDir(parsed.path);
    await branchCommit(gitDir, branch, parsed.path);
    return null;
  }
  const dir = cloneDirOf(deps.dataDir, id);
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  try {
    await git(["clone", "--bare", "--no-tags", "--single-branch", "--branch", branch, "--", parsed.url, dir], {
      transport: parsed.transport,
      timeoutMs: 300_000,
    });
    await branchCommit(dir, branch, parsed.url);
  } catch (err) {
    fs.rmSync(path.dirname(dir), { recursive: true, force: true });
    if (err instanceof RepositoryError) throw err;
    throw new RepositoryError(
      "INVALID_INPUT",
      `Cloning ${parsed.url} (branch ${branch}) failed: ${(err as Error & { stderr?: string }).stderr?.split("\n").slice(-3).join(" ") || (err as Error).message}`,
    );
  }
  return path.dirname(dir);
}

export async function createRepository(
  deps: RegistryDeps,
  who: RepositoryActor,
  raw: unknown,
  opts: { builtIn?: boolean } = {},
): Promise<RepositoryView> {
  requireAdmin(who, "Registering");
  const parsed = RepositoryInput.safeParse(raw);
  if (!parsed.success) throw invalid(problemsOf(parsed.error));
  const input = parsed.data;
  checkGlobs(input.protectedPaths);
  await nameTaken(deps.db, input.name);
  await checkRefs(deps.db, input);
  const id = newRepositoryId();
  const cleanup = await prepareSource(deps, id, input.source, input.defaultBranch);
  const source = (() => {
    const s = parseSource(input.source);
    return s.kind === "path" ? s.path : s.url;
  })();
  try {
    const row = await deps.db.$transaction(async (tx) => {
      const created = await tx.repository.create({
        data: {
          id,
          ...input,
          source,
          protectedPaths: JSON.stringify(input.protectedPaths),
          builtIn: opts.builtIn ?? false,
          createdById: who.actor.userId,
        },
        select: ROW_SELECT,
      });
      await audit(tx as Db, who, "repository.created", created, {
        source,
        defaultBranch: input.defaultBranch,
        testCommand: input.testCommand,
        teamId: input.teamId,
      });
      return created;
    });
    return view(row);
  } catch (err) {
    if (cleanup) fs.rmSync(cleanup, { recursive: true, force: true });
    if ((err as { code?: string }).code === "P2002")
      throw new RepositoryError("CONFLICT", `There is already a repository named ${input.name}; pick another name`);
    throw err;
  }
}

/** The repository when the actor may see it; else NOT_FOUND (another team's looks like none). */
export async function visibleRepository(db: Db, actor: Actor, id: string): Promise<RepositoryRow> {
  const row = await db.repository.findUnique({ where: { id }, select: ROW_SELECT });
  if (!row || (actor.role !== "admin" && row.teamId !== null && !actor.teamIds.includes(row.teamId))) throw repositoryNotFound(id);
  return row;
}

export async function getRepository(db: Db, actor: Actor, id: string): Promise<RepositoryView> {
  return view(await visibleRepository(db, actor, id));
}

/** The repositories the actor sees, by name. */
export async function listRepositories(db: Db, actor: Actor, opts: { includeArchived?: boolean } = {}): Promise<RepositoryView[]> {
  const rows = await db.repository.findMany({
    where: {
      ...(opts.includeArchived ? {} : { archivedAt: null }),
      ...(actor.role === "admin" ? {} : { OR: [{ teamId: null }, { teamId: { in: actor.teamIds } }] }),
    },
    select: ROW_SELECT,
    orderBy: { name: "asc" },
  });
  return rows.map(view);
}

export async function updateRepository(deps: RegistryDeps, who: RepositoryActor, id: string, raw: unknown): Promise<RepositoryView> {
  requireAdmin(who, "Changing");
  const row = await visibleRepository(deps.db, who.actor, id);
  if (raw && typeof raw === "object" && "source" in raw)
    throw invalid([{ field: "source", message: "source: a repository's source cannot change; register a new repository" }]);
  const parsed = RepositoryPatch.safeParse(raw);
  if (!parsed.success) throw invalid(problemsOf(parsed.error));
  const patch = parsed.data;
  if (row.builtIn && patch.name !== undefined && patch.name !== row.name)
    throw new RepositoryError("INVALID_INPUT", `The built-in repository ${row.name} keeps its name`);
  if (patch.protectedPaths) checkGlobs(patch.protectedPaths);
  if (patch.name) await nameTaken(deps.db, patch.name, id);
  await checkRefs(deps.db, patch);
  if (patch.defaultBranch && patch.defaultBranch !== row.defaultBranch) {
    const s = parseSource(row.source);
    const gitDir = s.kind === "path" ? await localGitDir(s.path) : cloneDirOf(deps.dataDir, row.id);
    if (s.kind === "url") {
      await git(["fetch", "--no-tags", "--", s.url, `+refs/heads/${patch.defaultBranch}:refs/heads/${patch.defaultBranch}`], {
        gitDir,
        transport: s.transport,
        timeoutMs: 300_000,
      }).catch(() => undefined);
    }
    await branchCommit(gitDir, patch.defaultBranch, row.name);
  }
  const changed = Object.keys(patch).filter(
    (k) =>
      JSON.stringify(patch[k as keyof typeof patch]) !==
      JSON.stringify(k === "protectedPaths" ? protectedPathsOf(row) : row[k as keyof RepositoryRow]),
  );
  const { protectedPaths, ...fields } = patch;
  const updated = await deps.db.$transaction(async (tx) => {
    const u = await tx.repository.update({
      where: { id },
      data: { ...fields, ...(protectedPaths ? { protectedPaths: JSON.stringify(protectedPaths) } : {}) },
      select: ROW_SELECT,
    });
    await audit(tx as Db, who, "repository.updated", u, { changed });
    return u;
  });
  return view(updated);
}

/** Archives (or restores) a repository: archived ones are left out of lists and take no new change requests. */
export async function setRepositoryArchived(
  deps: RegistryDeps,
  who: RepositoryActor,
  id: string,
  archived: boolean,
): Promise<RepositoryView> {
  requireAdmin(who, archived ? "Archiving" : "Restoring");
  const row = await visibleRepository(deps.db, who.actor, id);
  if ((row.archivedAt !== null) === archived) return view(row);
  const updated = await deps.db.$transaction(async (tx) => {
    const u = await tx.repository.update({ where: { id }, data: { archivedAt: archived ? new Date() : null }, select: ROW_SELECT });
    await audit(tx as Db, who, archived ? "repository.archived" : "repository.restored", u);
    return u;
  });
  return view(updated);
}
