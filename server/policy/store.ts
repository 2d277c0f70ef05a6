// Policy versions in the database: the highest version is the active one.
// Saving never edits a version; it adds the next one and an audit row.
import { DomainError } from "@/server/errors";
import { recordAudit } from "@/server/audit";
import type { Db } from "@/server/db";
import { DEFAULT_POLICY, EARLIER_DEFAULT_POLICIES } from "./default-policy";
import { parsePolicy, PolicyValidationError } from "./document";
import { parseResolution, resolvePolicyTeams, type TeamResolution } from "./team-ids";

export interface PolicyVersionSummary {
  version: number;
  comment: string;
  createdAt: Date;
  /** Null for the default policy Rein installed itself. */
  createdBy: { id: string; name: string } | null;
}

export interface PolicyVersionRecord extends PolicyVersionSummary {
  source: string;
  /** Its `team:` entries as the team ids they named when it was saved. */
  teams: TeamResolution;
}

export interface SavePolicyInput {
  source: string;
  comment: string;
  actor: { id: string; name: string };
  /** The version the edit started from; when another is active now, the save is refused. */
  baseVersion?: number;
  /** `team:` entries that must resolve to exactly these team ids now, or the save is refused (a suggested rule's team). */
  expectTeams?: TeamResolution;
}

export const MAX_COMMENT_CHARS = 500;

export class PolicyConflictError extends DomainError {
  constructor(
    readonly baseVersion: number,
    readonly latestVersion: number,
  ) {
    super(
      "CONFLICT",
      `Version ${latestVersion} was saved after the version ${baseVersion} you edited; look at it, then save again over it`,
    );
    this.name = "PolicyConflictError";
  }
}

const SUMMARY = { version: true, comment: true, createdAt: true, createdById: true } as const;
const RECORD = { ...SUMMARY, source: true, teamIds: true } as const;

type Row = { version: number; comment: string; createdAt: Date; createdById: string | null };
type RecordRow = Row & { source: string; teamIds: string | null };

/**
 * The version's team resolution. A version saved before teams were resolved
 * gets one now, from the names teams have today (a name no team has names
 * none), kept so that later renames do not change it.
 */
async function teamsOf(db: Db, row: RecordRow): Promise<TeamResolution> {
  const stored = parseResolution(row.teamIds);
  if (stored) return stored;
  const parsed = parsePolicy(row.source, row.version);
  const teams = parsed.ok ? (await resolvePolicyTeams(db, parsed.policy, false)).teams : {};
  if (!Object.keys(teams).length) return teams; // no team rules: nothing to keep
  await db.policyDocument.updateMany({ where: { version: row.version, teamIds: null }, data: { teamIds: JSON.stringify(teams) } });
  const now = await db.policyDocument.findUnique({ where: { version: row.version }, select: { teamIds: true } });
  return parseResolution(now?.teamIds ?? null) ?? teams;
}

async function recordOf(db: Db, row: RecordRow): Promise<PolicyVersionRecord> {
  const teams = await teamsOf(db, row);
  const { teamIds: _, ...rest } = row;
  return { ...(await withAuthors(db, [rest]))[0], teams };
}

async function withAuthors<T extends Row>(db: Db, rows: T[]): Promise<Array<Omit<T, "createdById"> & PolicyVersionSummary>> {
  const ids = [...new Set(rows.map((r) => r.createdById).filter((id): id is string => !!id))];
  const users = ids.length ? await db.user.findMany({ where: { id: { in: ids } }, select: { id: true, name: true, email: true } }) : [];
  const names = new Map(users.map((u) => [u.id, u.name || u.email]));
  return rows.map(({ createdById, ...rest }) => ({
    ...rest,
    createdBy: createdById ? { id: createdById, name: names.get(createdById) ?? createdById } : null,
  }));
}

function isUniqueConflict(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === "P2002";
}

/** The highest stored version number, 0 when there is none. */
export async function latestPolicyVersion(db: Db): Promise<number> {
  const row = await db.policyDocument.findFirst({ orderBy: { version: "desc" }, select: { version: true } });
  return row?.version ?? 0;
}

/** The active (highest) version; a database without one gets DEFAULT_POLICY as version 1. */
export async function activePolicy(db: Db): Promise<PolicyVersionRecord> {
  const row = await db.policyDocument.findFirst({ orderBy: { version: "desc" }, select: RECORD });
  if (row && !row.createdById && EARLIER_DEFAULT_POLICIES.includes(row.source)) {
    // Rein's own default, unedited: the newer default takes its place as the next version.
    try {
      await db.policyDocument.create({
        data: {
          version: row.version + 1,
          source: DEFAULT_POLICY,
          teamIds: "{}",
          comment: "Default policy, updated with Rein (self-improvement tools)",
        },
      });
    } catch (err) {
      if (!isUniqueConflict(err)) throw err;
    }
    return activePolicy(db);
  }
  if (row) return recordOf(db, row);
  try {
    await db.policyDocument.create({ data: { version: 1, source: DEFAULT_POLICY, teamIds: "{}", comment: "Default policy" } });
  } catch (err) {
    if (!isUniqueConflict(err)) throw err; // another process installed it first
  }
  return activePolicy(db);
}

export async function listPolicyVersions(db: Db): Promise<PolicyVersionSummary[]> {
  await activePolicy(db); // there is always a policy: the history starts with the default
  const rows = await db.policyDocument.findMany({ orderBy: { version: "desc" }, select: SUMMARY });
  return withAuthors(db, rows);
}

export async function getPolicyVersion(db: Db, version: number): Promise<PolicyVersionRecord | null> {
  const row = await db.policyDocument.findUnique({ where: { version }, select: RECORD });
  return row ? recordOf(db, row) : null;
}

/**
 * Validates and stores the next version with a policy.updated audit row (both
 * or neither). Throws PolicyValidationError (nothing stored) or
 * PolicyConflictError. The caller invalidates its PolicyGate afterwards.
 */
export async function savePolicy(db: Db, input: SavePolicyInput): Promise<PolicyVersionRecord> {
  const parsed = parsePolicy(input.source);
  if (!parsed.ok) throw new PolicyValidationError(parsed.errors);
  const comment = input.comment.trim();
  if (comment.length > MAX_COMMENT_CHARS) {
    throw new PolicyValidationError([{ message: `the comment is ${comment.length} characters; at most ${MAX_COMMENT_CHARS} are allowed` }]);
  }
  // Team names are resolved to ids now and kept with the version (docs/security.md#teams-are-referenced-by-id).
  const resolved = await resolvePolicyTeams(db, parsed.policy, true);
  if (resolved.errors.length) throw new PolicyValidationError(resolved.errors);
  for (const [entry, ids] of Object.entries(input.expectTeams ?? {})) {
    const now = resolved.teams[entry] ?? [];
    if (now.length !== ids.length || now.some((id, i) => id !== [...ids].sort()[i]))
      throw new DomainError("CONFLICT", `The team "${entry}" is not the one it was a moment ago (renamed meanwhile); nothing was saved`);
  }
  const teamIds = JSON.stringify(resolved.teams);
  for (let attempt = 0; ; attempt++) {
    const latest = await latestPolicyVersion(db);
    if (input.baseVersion !== undefined && input.baseVersion !== latest) throw new PolicyConflictError(input.baseVersion, latest);
    const version = latest + 1;
    try {
      const row = await db.$transaction(async (tx) => {
        const created = await tx.policyDocument.create({
          data: { version, source: input.source, teamIds, comment, createdById: input.actor.id },
          select: RECORD,
        });
        await recordAudit(tx, {
          kind: "policy.updated",
          actorId: input.actor.id,
          actorName: input.actor.name,
          channel: "admin",
          subject: `v${version}`,
          detail: { comment, previousVersion: latest || null },
        });
        return created;
      });
      const { createdById: _, teamIds: __, ...rest } = row;
      return { ...rest, teams: resolved.teams, createdBy: { id: input.actor.id, name: input.actor.name } };
    } catch (err) {
      // Someone saved the same version number between our read and write: once more.
      if (isUniqueConflict(err) && attempt === 0 && input.baseVersion === undefined) continue;
      if (isUniqueConflict(err) && input.baseVersion !== undefined)
        throw new PolicyConflictError(input.baseVersion, await latestPolicyVersion(db));
      throw err;
    }
  }
}
