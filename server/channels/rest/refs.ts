// Things people name are accepted by id or by name (docs/api.md#conventions):
// a team, a dataset, a repository, and a person by id or e-mail. A name is
// looked up only among the things the caller can see, with the same rule as
// their lists, and becomes the id: every check after this one, and what is
// stored, is by id. A reference that is neither goes on unchanged, so the
// route answers exactly as it does for an unknown id.
import type { Db } from "@/server/db";
import type { Actor } from "@/server/identity";

export type RefKind = "team" | "dataset" | "repository" | "user";

/** Body and query fields that name a thing wherever they appear. */
export const REF_FIELDS: Readonly<Record<string, RefKind>> = { teamId: "team", datasetId: "dataset", repositoryId: "repository" };

/** How each kind is described beside its parameter in the OpenAPI document. */
export const REF_WORDS: Readonly<Record<RefKind, string>> = {
  team: "The team's id or name",
  dataset: "The dataset's id or name",
  repository: "The repository's id or name",
  user: "The person's id or e-mail address",
};

/** Shared (null team) things are seen by everyone; a team's by its members; everything by admins. */
const seenBy = (actor: Actor) => (actor.role === "admin" ? {} : { OR: [{ teamId: null }, { teamId: { in: actor.teamIds } }] });

async function idOf(db: Db, actor: Actor, kind: RefKind, ref: string): Promise<string> {
  switch (kind) {
    case "team": {
      const team = await db.team.findFirst({
        where: { name: ref, ...(actor.role === "admin" ? {} : { id: { in: actor.teamIds } }) },
        select: { id: true },
      });
      return team?.id ?? ref;
    }
    case "dataset": {
      const dataset = await db.dataset.findFirst({ where: { name: ref, ...seenBy(actor) }, select: { id: true } });
      return dataset?.id ?? ref;
    }
    case "repository": {
      const repository = await db.repository.findFirst({ where: { name: ref, ...seenBy(actor) }, select: { id: true } });
      return repository?.id ?? ref;
    }
    case "user": {
      if (!ref.includes("@")) return ref;
      const user = await db.user.findFirst({ where: { email: { in: [ref, ref.toLowerCase()] } }, select: { id: true } });
      return user?.id ?? ref;
    }
  }
}

/**
 * The id each reference stands for. An id is taken as it is (ids are never
 * looked up by name, so a thing named like another's id cannot take its place).
 */
export async function resolveRef(db: Db, actor: Actor, kind: RefKind, ref: string): Promise<string> {
  const byId =
    kind === "team"
      ? await db.team.findUnique({ where: { id: ref }, select: { id: true } })
      : kind === "dataset"
        ? await db.dataset.findUnique({ where: { id: ref }, select: { id: true } })
        : kind === "repository"
          ? await db.repository.findUnique({ where: { id: ref }, select: { id: true } })
          : await db.user.findUnique({ where: { id: ref }, select: { id: true } });
  return byId ? ref : idOf(db, actor, kind, ref);
}

/** The object with each field that names a thing (REF_FIELDS, or `kinds` for path parameters) turned into its id. */
export async function resolveRefs<T>(db: Db, actor: Actor, value: T, kinds: Readonly<Record<string, RefKind>> = REF_FIELDS): Promise<T> {
  if (!value || typeof value !== "object" || Array.isArray(value)) return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [field, kind] of Object.entries(kinds)) {
    const ref = out[field];
    if (typeof ref === "string" && ref) out[field] = await resolveRef(db, actor, kind, ref);
  }
  return out as T;
}
