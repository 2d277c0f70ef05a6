// Providers and models in the database. A provider's API key is a Secret
// ("provider/<name>/api-key"); views carry it masked, never in clear.
import { z } from "zod";
import { recordAudit } from "@/server/audit";
import type { Db } from "@/server/db";
import { deleteSecret, getSecretValue, mask, putSecret, type SecretKeyring } from "@/server/secrets";
import { PROVIDER_KINDS, type ProviderKind } from "../providers";
import { CatalogError, PROVIDER_NAME, type ModelView, type ProviderView } from "./types";

export interface CatalogActor {
  userId: string;
  name: string;
  channel?: string;
}

export const keySecretName = (provider: string) => `provider/${provider}/api-key`;

const HttpUrl = z
  .string()
  .trim()
  .max(500)
  .refine((u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol), "must be an http:// or https:// URL")
  .transform((u) => u.replace(/\/+$/, ""));
const ApiKey = z.string().trim().min(1, "is empty").max(4096, "is longer than 4096 characters");

export const ProviderInput = z
  .object({
    name: z.string().trim().regex(PROVIDER_NAME, "lower-case letters, digits and . _ - (at most 63), starting with a letter or digit"),
    kind: z.enum(PROVIDER_KINDS as [ProviderKind, ...ProviderKind[]], { error: `must be one of ${PROVIDER_KINDS.join(", ")}` }),
    baseUrl: HttpUrl.optional(),
    apiKey: ApiKey.optional(),
    selfHosted: z.boolean().default(false),
    enabled: z.boolean().default(true),
  })
  .superRefine((p, ctx) => {
    if (p.name === "scripted") ctx.addIssue({ code: "custom", path: ["name"], message: '"scripted" is the built-in demo model' });
    if (p.kind !== "openai-compatible" && !p.apiKey)
      ctx.addIssue({ code: "custom", path: ["apiKey"], message: `an ${p.kind} provider needs an API key` });
    if (p.kind === "openai-compatible" && !p.baseUrl)
      ctx.addIssue({
        code: "custom",
        path: ["baseUrl"],
        message: "an OpenAI-compatible provider needs a base URL (e.g. http://localhost:11434/v1)",
      });
  });
export type ProviderInput = z.input<typeof ProviderInput>;

export const ProviderUpdate = z.object({
  name: z.string().trim().min(1),
  baseUrl: HttpUrl.nullable().optional(),
  /** A new key; null removes it; absent keeps it. */
  apiKey: ApiKey.nullable().optional(),
  selfHosted: z.boolean().optional(),
  enabled: z.boolean().optional(),
});
export type ProviderUpdate = z.input<typeof ProviderUpdate>;

export const ModelInput = z.object({
  provider: z.string().trim().min(1, "is required"),
  modelId: z.string().trim().min(1, "is required").max(200).regex(/^\S+$/, "has no spaces"),
  family: z
    .string()
    .trim()
    .min(1, "is required (e.g. gpt, claude, llama)")
    .max(60)
    .regex(/^[a-z0-9][a-z0-9._-]*$/i, "letters, digits and . _ - only"),
  contextWindow: z.number().int().min(1024, "is at least 1024 tokens").max(10_000_000).default(128_000),
  maxOutputTokens: z.number().int().min(1).max(1_000_000).nullable().optional(),
  tools: z.boolean().default(true),
  vision: z.boolean().default(false),
  streaming: z.boolean().default(true),
  strength: z.number().min(0, "is between 0 and 1").max(1, "is between 0 and 1").default(0.5),
  enabled: z.boolean().default(true),
});
export type ModelInput = z.input<typeof ModelInput>;

const PROVIDER_COLUMNS = {
  id: true,
  name: true,
  kind: true,
  baseUrl: true,
  apiKeySecret: true,
  selfHosted: true,
  enabled: true,
  createdAt: true,
  updatedAt: true,
  _count: { select: { models: true } },
} as const;
const MODEL_COLUMNS = {
  id: true,
  modelId: true,
  family: true,
  contextWindow: true,
  maxOutputTokens: true,
  tools: true,
  vision: true,
  streaming: true,
  strength: true,
  enabled: true,
  provider: { select: { name: true } },
} as const;

type ProviderRow = {
  id: string;
  name: string;
  kind: string;
  baseUrl: string | null;
  apiKeySecret: string | null;
  selfHosted: boolean;
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
  _count: { models: number };
};
type ModelRow = Omit<ModelView, "ref" | "provider"> & { provider: { name: string } };

async function providerView(db: Db, keyring: SecretKeyring, row: ProviderRow): Promise<ProviderView> {
  let apiKeyMasked: string | null = null;
  if (row.apiKeySecret)
    apiKeyMasked = mask(await getSecretValue(db, keyring, row.apiKeySecret, { touch: false }).catch(() => "unreadable"));
  return {
    id: row.id,
    name: row.name,
    kind: row.kind as ProviderKind,
    baseUrl: row.baseUrl,
    apiKeyMasked,
    selfHosted: row.selfHosted,
    enabled: row.enabled,
    modelCount: row._count.models,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export function modelView(row: ModelRow): ModelView {
  const { provider, ...rest } = row;
  return { ...rest, provider: provider.name, ref: `${provider.name}/${row.modelId}` };
}

export async function listProviders(db: Db, keyring: SecretKeyring): Promise<ProviderView[]> {
  const rows = await db.provider.findMany({ select: PROVIDER_COLUMNS, orderBy: { name: "asc" } });
  return Promise.all(rows.map((r) => providerView(db, keyring, r)));
}

export async function getProvider(db: Db, keyring: SecretKeyring, name: string): Promise<ProviderView> {
  const row = await db.provider.findUnique({ where: { name }, select: PROVIDER_COLUMNS });
  if (!row) throw new CatalogError("NOT_FOUND", `There is no provider named "${name}"`);
  return providerView(db, keyring, row);
}

/** The provider with its key in clear: for calling it, never for a response. */
export async function providerCredentials(
  db: Db,
  keyring: SecretKeyring,
  name: string,
): Promise<{ kind: ProviderKind; baseUrl: string | null; apiKey: string | null }> {
  const row = await db.provider.findUnique({ where: { name }, select: { kind: true, baseUrl: true, apiKeySecret: true } });
  if (!row) throw new CatalogError("NOT_FOUND", `There is no provider named "${name}"`);
  const apiKey = row.apiKeySecret ? await getSecretValue(db, keyring, row.apiKeySecret) : null;
  return { kind: row.kind as ProviderKind, baseUrl: row.baseUrl, apiKey };
}

export async function createProvider(db: Db, keyring: SecretKeyring, raw: ProviderInput, actor: CatalogActor): Promise<ProviderView> {
  const input = ProviderInput.parse(raw);
  if (await db.provider.findUnique({ where: { name: input.name }, select: { id: true } })) {
    throw new CatalogError("CONFLICT", `A provider named "${input.name}" already exists`);
  }
  const secret = input.apiKey ? keySecretName(input.name) : null;
  if (secret) await putSecret(db, keyring, { name: secret, value: input.apiKey!, actor: actor.userId });
  await db.provider.create({
    data: {
      name: input.name,
      kind: input.kind,
      baseUrl: input.baseUrl ?? null,
      apiKeySecret: secret,
      selfHosted: input.selfHosted,
      enabled: input.enabled,
      createdById: actor.userId,
    },
    select: { id: true },
  });
  await audit(db, actor, "provider.created", input.name, {
    kind: input.kind,
    baseUrl: input.baseUrl ?? null,
    apiKey: secret ? "set" : "none",
    selfHosted: input.selfHosted,
  });
  return getProvider(db, keyring, input.name);
}

export async function updateProvider(db: Db, keyring: SecretKeyring, raw: ProviderUpdate, actor: CatalogActor): Promise<ProviderView> {
  const input = ProviderUpdate.parse(raw);
  const row = await db.provider.findUnique({ where: { name: input.name }, select: { kind: true, apiKeySecret: true, baseUrl: true } });
  if (!row) throw new CatalogError("NOT_FOUND", `There is no provider named "${input.name}"`);
  if (input.baseUrl === null && row.kind === "openai-compatible")
    throw new CatalogError("INVALID_INPUT", "baseUrl: an OpenAI-compatible provider needs a base URL");
  if (input.apiKey === null && row.kind !== "openai-compatible")
    throw new CatalogError("INVALID_INPUT", `apiKey: an ${row.kind} provider needs an API key`);
  let apiKeySecret = row.apiKeySecret;
  if (input.apiKey) {
    apiKeySecret = keySecretName(input.name);
    await putSecret(db, keyring, { name: apiKeySecret, value: input.apiKey, actor: actor.userId });
  } else if (input.apiKey === null && row.apiKeySecret) {
    await deleteSecret(db, row.apiKeySecret);
    apiKeySecret = null;
  }
  await db.provider.update({
    where: { name: input.name },
    data: {
      apiKeySecret,
      ...(input.baseUrl !== undefined ? { baseUrl: input.baseUrl } : {}),
      ...(input.selfHosted !== undefined ? { selfHosted: input.selfHosted } : {}),
      ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
    },
    select: { id: true },
  });
  const changed = { ...input, apiKey: input.apiKey === undefined ? undefined : input.apiKey === null ? "removed" : "replaced" };
  await audit(db, actor, "provider.updated", input.name, changed);
  return getProvider(db, keyring, input.name);
}

export async function deleteProvider(db: Db, name: string, actor: CatalogActor): Promise<void> {
  const row = await db.provider.findUnique({ where: { name }, select: { apiKeySecret: true } });
  if (!row) throw new CatalogError("NOT_FOUND", `There is no provider named "${name}"`);
  await db.provider.delete({ where: { name } });
  if (row.apiKeySecret) await deleteSecret(db, row.apiKeySecret);
  await audit(db, actor, "provider.deleted", name, {});
}

export async function listModels(db: Db): Promise<ModelView[]> {
  const rows = await db.providerModel.findMany({ select: MODEL_COLUMNS, orderBy: [{ provider: { name: "asc" } }, { modelId: "asc" }] });
  return rows.map(modelView);
}

/** Creates the model or updates it (provider and model id name it). */
export async function saveModel(db: Db, raw: ModelInput, actor: CatalogActor): Promise<ModelView> {
  const input = ModelInput.parse(raw);
  const provider = await db.provider.findUnique({ where: { name: input.provider }, select: { id: true } });
  if (!provider) throw new CatalogError("NOT_FOUND", `There is no provider named "${input.provider}"; add it first`);
  const { provider: _name, ...fields } = input;
  const data = { ...fields, maxOutputTokens: fields.maxOutputTokens ?? null };
  const row = await db.providerModel.upsert({
    where: { providerId_modelId: { providerId: provider.id, modelId: input.modelId } },
    create: { providerId: provider.id, ...data },
    update: data,
    select: MODEL_COLUMNS,
  });
  await audit(db, actor, "model.saved", `${input.provider}/${input.modelId}`, data);
  return modelView(row);
}

export async function deleteModel(db: Db, ref: string, actor: CatalogActor): Promise<void> {
  const slash = ref.indexOf("/");
  const [provider, modelId] = slash > 0 ? [ref.slice(0, slash), ref.slice(slash + 1)] : [ref, ""];
  const { count } = await db.providerModel.deleteMany({ where: { modelId, provider: { name: provider } } });
  if (count === 0) throw new CatalogError("NOT_FOUND", `There is no model "${ref}"`);
  await audit(db, actor, "model.deleted", ref, {});
}

async function audit(db: Db, actor: CatalogActor, kind: string, subject: string, detail: Record<string, unknown>) {
  await recordAudit(db, { kind, actorId: actor.userId, actorName: actor.name, channel: actor.channel ?? "web", subject, detail });
}
