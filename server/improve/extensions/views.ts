// What people read of the registry (the Extensions pages, REST, CLI):
// extensions serve every team, so everyone who can sign in sees them; the
// run that proposed one is named only to those who may see that run.
import { z } from "zod";
import type { Db } from "@/server/db";
import type { Actor } from "@/server/identity";
import { ExtensionError } from "./registry";
import { EXTENSION_STATES } from "./states";
import type { ExtensionManifest } from "./package";

export const ListExtensionsInput = z
  .object({
    state: z.enum(EXTENSION_STATES, { error: `state is one of ${EXTENSION_STATES.join(", ")}` }).optional(),
    name: z.string().max(64, "name is at most 64 characters").optional(),
  })
  .strict();
export type ListExtensionsInput = z.infer<typeof ListExtensionsInput>;

const LIST_SELECT = {
  id: true,
  name: true,
  version: true,
  state: true,
  stateReason: true,
  manifest: true,
  testsResult: true,
  createdAt: true,
  updatedAt: true,
} as const;

export interface ExtensionTests {
  ok: boolean;
  passed: number;
  failed: number;
  summary: string;
  untested: string[];
  build: { ok: boolean; problems?: string[]; durationMs?: number };
  results: Array<{ file: string; name: string; ok: boolean; message: string; durationMs: number }>;
}

function parseJson<T>(text: string | null, fallback: T): T {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

function summaryOf(row: {
  id: string;
  name: string;
  version: string;
  state: string;
  stateReason: string | null;
  manifest: string;
  testsResult: string | null;
  createdAt: Date;
  updatedAt: Date;
}) {
  const manifest = parseJson<Partial<ExtensionManifest>>(row.manifest, {});
  const tests = parseJson<ExtensionTests | null>(row.testsResult, null);
  return {
    id: row.id,
    name: row.name,
    version: row.version,
    state: row.state,
    stateReason: row.stateReason,
    description: manifest.description ?? "",
    capabilities: manifest.capabilities ?? [],
    tools: manifest.tools ?? [],
    skills: manifest.skills ?? [],
    hooks: manifest.hooks ?? [],
    tests: tests ? { ok: tests.ok, passed: tests.passed, failed: tests.failed } : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
export type ExtensionSummary = ReturnType<typeof summaryOf>;

/** Every extension version, newest first; removed ones only when asked for by state. */
export async function listExtensions(db: Db, _actor: Actor, input: ListExtensionsInput = {}): Promise<{ extensions: ExtensionSummary[] }> {
  const { state, name } = ListExtensionsInput.parse(input);
  const rows = await db.extension.findMany({
    where: { ...(state ? { state } : { state: { not: "removed" } }), ...(name ? { name } : {}) },
    select: LIST_SELECT,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: 500,
  });
  return { extensions: rows.map(summaryOf) };
}

/** One extension with its manifest, files and test results. */
export async function getExtension(db: Db, actor: Actor, id: string) {
  const row = await db.extension.findUnique({
    where: { id },
    select: { ...LIST_SELECT, files: true, authorRunId: true, createdById: true },
  });
  if (!row) throw new ExtensionError("NOT_FOUND", `There is no extension ${id}`);
  const run = row.authorRunId
    ? await db.run.findUnique({ where: { id: row.authorRunId }, select: { id: true, teamId: true, createdById: true } })
    : null;
  const seesRun =
    !!run && (actor.role === "admin" || run.createdById === actor.userId || (!!run.teamId && actor.teamIds.includes(run.teamId)));
  const creator = row.createdById ? await db.user.findUnique({ where: { id: row.createdById }, select: { id: true, name: true } }) : null;
  return {
    ...summaryOf(row),
    manifest: parseJson<Record<string, unknown>>(row.manifest, {}),
    files: parseJson<Record<string, string>>(row.files, {}),
    testResults: parseJson<ExtensionTests | null>(row.testsResult, null),
    authorRunId: seesRun ? row.authorRunId : null,
    createdBy: creator,
  };
}
export type ExtensionDetail = Awaited<ReturnType<typeof getExtension>>;
