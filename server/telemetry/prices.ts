// The model price table (docs/traces-and-costs.md#prices): admins set the
// USD price per million tokens of each "<provider>/<model id>". Every change
// is audited; the caller reloads the PriceBook (Telemetry.loadPrices) so new
// model calls are costed with it. Calls already costed keep their cost.
import { DomainError } from "@/server/errors";
import { z } from "zod";
import { recordAudit } from "@/server/audit";
import type { Db, Prisma } from "@/server/db";

/** A price this large is a typo (per token instead of per million, an extra digit). */
export const MAX_PRICE_PER_MTOK = 100_000;

const MODEL_RE = /^[a-z0-9][a-z0-9._-]*\/\S+$/;

// Messages name no field: the path does ("inputPerMTok: must be 0 or more").
const Price = z
  .number({ error: "must be a number" })
  .refine(Number.isFinite, "must be a finite number")
  .refine((n) => n >= 0, "must be 0 or more")
  .refine((n) => n <= MAX_PRICE_PER_MTOK, `is at most ${MAX_PRICE_PER_MTOK} USD per million tokens`);

export const ModelName = z
  .string({ error: "is required" })
  .trim()
  .min(1, "is required")
  .max(200, "has at most 200 characters")
  .regex(MODEL_RE, 'must be "<provider>/<model id>", e.g. openai/gpt-4.1 (provider in lower case, no spaces)');

export const PriceInput = z.object({
  model: ModelName,
  inputPerMTok: Price,
  outputPerMTok: Price,
  cacheReadPerMTok: Price.default(0),
  cacheWritePerMTok: Price.default(0),
});
export type PriceInput = z.input<typeof PriceInput>;

export interface PriceView {
  model: string;
  inputPerMTok: number;
  outputPerMTok: number;
  cacheReadPerMTok: number;
  cacheWritePerMTok: number;
  updatedAt: Date;
  updatedBy: { id: string; name: string } | null;
}

/** Who changed the table, for the audit log and updatedById. */
export interface PriceActor {
  userId: string;
  name: string;
}

export class PriceNotFoundError extends DomainError {
  constructor(readonly model: string) {
    super("NOT_FOUND", `There is no price for ${model}`);
    this.name = "PriceNotFoundError";
  }
}

const COLUMNS = {
  model: true,
  inputPerMTok: true,
  outputPerMTok: true,
  cacheReadPerMTok: true,
  cacheWritePerMTok: true,
  updatedById: true,
  updatedAt: true,
} as const;

/** The table, by model name. */
export async function listPrices(db: Db): Promise<PriceView[]> {
  const rows = await db.modelPrice.findMany({ select: COLUMNS, orderBy: { model: "asc" } });
  const ids = [...new Set(rows.map((r) => r.updatedById).filter((id): id is string => !!id))];
  const users = ids.length ? await db.user.findMany({ where: { id: { in: ids } }, select: { id: true, name: true } }) : [];
  const names = new Map(users.map((u) => [u.id, u.name]));
  return rows.map(({ updatedById, ...r }) => ({
    ...r,
    updatedBy: updatedById ? { id: updatedById, name: names.get(updatedById) ?? updatedById } : null,
  }));
}

/**
 * Models that made calls (per the rollups, optionally only some of them) but
 * have no price: their calls count as $0. The scripted models are free by design.
 */
export async function unpricedModels(db: Db, where: Prisma.CostRollupWhereInput = {}): Promise<string[]> {
  const [used, priced] = await Promise.all([
    db.costRollup.groupBy({ by: ["model"], where: { AND: [where, { calls: { gt: 0 } }] } }),
    db.modelPrice.findMany({ select: { model: true } }),
  ]);
  const known = new Set(priced.map((p) => p.model));
  return used
    .map((u) => u.model)
    .filter((m) => m && !m.startsWith("scripted/") && !known.has(m))
    .sort();
}

/** Creates or replaces a model's price; validates first (ZodError with a message per field). */
export async function setPrice(db: Db, raw: PriceInput, actor: PriceActor): Promise<PriceView> {
  const input = PriceInput.parse(raw);
  const { model, ...price } = input;
  return db.$transaction(async (tx) => {
    const before = await tx.modelPrice.findUnique({ where: { model }, select: COLUMNS });
    const row = await tx.modelPrice.upsert({
      where: { model },
      create: { model, ...price, updatedById: actor.userId },
      update: { ...price, updatedById: actor.userId },
      select: COLUMNS,
    });
    await recordAudit(tx, {
      kind: "price.updated",
      actorId: actor.userId,
      actorName: actor.name,
      channel: "admin",
      subject: model,
      detail: { action: before ? "update" : "create", before: before ? pricesOf(before) : null, after: price },
    });
    const { updatedById: _u, ...rest } = row;
    return { ...rest, updatedBy: { id: actor.userId, name: actor.name } };
  });
}

/** Removes a model's price: its later calls count as $0 (and are flagged) until it is priced again. */
export async function deletePrice(db: Db, rawModel: string, actor: PriceActor): Promise<void> {
  const model = ModelName.parse(rawModel);
  await db.$transaction(async (tx) => {
    const before = await tx.modelPrice.findUnique({ where: { model }, select: COLUMNS });
    if (!before) throw new PriceNotFoundError(model);
    await tx.modelPrice.delete({ where: { model } });
    await recordAudit(tx, {
      kind: "price.updated",
      actorId: actor.userId,
      actorName: actor.name,
      channel: "admin",
      subject: model,
      detail: { action: "delete", before: pricesOf(before), after: null },
    });
  });
}

function pricesOf(r: { inputPerMTok: number; outputPerMTok: number; cacheReadPerMTok: number; cacheWritePerMTok: number }) {
  return {
    inputPerMTok: r.inputPerMTok,
    outputPerMTok: r.outputPerMTok,
    cacheReadPerMTok: r.cacheReadPerMTok,
    cacheWritePerMTok: r.cacheWritePerMTok,
  };
}
