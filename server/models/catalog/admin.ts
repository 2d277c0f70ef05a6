// What admins do with the catalog, one service for the web UI, REST and the
// CLI: every change is validated, audited (by the store) and loaded into the
// router at once. Prices live in the price table
// (docs/traces-and-costs.md#prices); saving a model with prices writes them
// there through the injected `setPrice`.
import type { ModelHealth } from "../router";
import { z } from "zod";
import type { Db } from "@/server/db";
import type { SecretKeyring } from "@/server/secrets";
import { BUILTIN_SCENARIOS, listProviderModels, type ProviderKind } from "../providers";
import type { ModelCatalog } from "./catalog";
import { getRouting, setRouting } from "./routing-store";
import {
  ModelInput,
  type ProviderInput,
  createProvider,
  deleteModel,
  deleteProvider,
  getProvider,
  listModels,
  listProviders,
  providerCredentials,
  saveModel,
  updateProvider,
  type CatalogActor,
  type ProviderUpdate,
} from "./store";
import { CatalogError, type ModelView, type RoutingConfigInput } from "./types";

const PriceFields = z.object({
  inputPerMTok: z.number().min(0).max(100_000),
  outputPerMTok: z.number().min(0).max(100_000),
  cacheReadPerMTok: z.number().min(0).max(100_000).default(0),
  cacheWritePerMTok: z.number().min(0).max(100_000).default(0),
});

export const SaveModelInput = z.intersection(ModelInput, z.object({ prices: PriceFields.optional() }));
export type SaveModelInput = z.input<typeof SaveModelInput>;

/** Test a saved provider by name, or the values of a form not saved yet. */
export const TestProviderInput = z.union([
  z.object({ name: z.string().trim().min(1) }),
  z.object({
    kind: z.enum(["openai", "anthropic", "openai-compatible"]),
    baseUrl: z.string().trim().max(500).optional(),
    apiKey: z.string().trim().max(4096).optional(),
    /** Editing a saved provider without retyping its key: use the stored one. */
    keyOf: z.string().trim().optional(),
  }),
]);
export type TestProviderInput = z.input<typeof TestProviderInput>;

export interface TestProviderResult {
  ok: boolean;
  models: string[];
  latencyMs: number;
  error?: { kind: string; message: string; status?: number };
}

export interface ModelOption {
  ref: string;
  label: string;
  scripted: boolean;
  family: string | null;
}

export interface ModelAdminDeps {
  db: Db;
  keyring: SecretKeyring;
  catalog: ModelCatalog;
  setPrice(input: { model: string } & z.infer<typeof PriceFields>, actor: CatalogActor): Promise<void>;
  /** How long Test waits for the provider. */
  testTimeoutMs?: number;
  /** Models that failed since they last answered, from the router of this process. */
  health?: () => ModelHealth[];
}

/**
 * What a failed test means and what to do next, in words (docs/models.md#providers):
 * the server tried, so "is it running" and "is it reachable from here" are the questions.
 */
export function failureWords(kind: string, message: string, baseUrl: string | undefined): string {
  const where = baseUrl ? (URL.canParse(baseUrl) ? new URL(baseUrl).origin : baseUrl) : "the provider's API";
  const from = "Rein reached for it from its server, not from your browser";
  if (kind === "network")
    return `Nothing answers at ${where}: is the server running, and is the address right? ${from}, so localhost means Rein's own machine (${message})`;
  if (kind === "timeout")
    return `${where} did not answer in time: it may be starting or overloaded, or a firewall drops the connection. ${from} (${message})`;
  if (kind === "auth") return `${where} refused the key: check it, and that it may list models (${message})`;
  return message;
}

export class ModelAdmin {
  constructor(private readonly deps: ModelAdminDeps) {}

  providers() {
    return listProviders(this.deps.db, this.deps.keyring);
  }

  provider(name: string) {
    return getProvider(this.deps.db, this.deps.keyring, name);
  }

  async createProvider(input: ProviderInput, actor: CatalogActor) {
    const view = await createProvider(this.deps.db, this.deps.keyring, input, actor);
    await this.deps.catalog.reload();
    return view;
  }

  async updateProvider(input: ProviderUpdate, actor: CatalogActor) {
    const view = await updateProvider(this.deps.db, this.deps.keyring, input, actor);
    await this.deps.catalog.reload();
    return view;
  }

  async deleteProvider(name: string, actor: CatalogActor) {
    await deleteProvider(this.deps.db, name, actor);
    await this.deps.catalog.reload();
  }

  /** Asks the provider for its models: proves the URL and the key work. The key never appears in the result. */
  async testProvider(raw: TestProviderInput): Promise<TestProviderResult> {
    const input = TestProviderInput.parse(raw);
    let target: { kind: ProviderKind; baseUrl?: string; apiKey?: string; name: string };
    if ("name" in input) {
      const saved = await providerCredentials(this.deps.db, this.deps.keyring, input.name);
      target = { kind: saved.kind, baseUrl: saved.baseUrl ?? undefined, apiKey: saved.apiKey ?? undefined, name: input.name };
    } else {
      const stored = !input.apiKey && input.keyOf ? (await providerCredentials(this.deps.db, this.deps.keyring, input.keyOf)).apiKey : null;
      target = { kind: input.kind, baseUrl: input.baseUrl || undefined, apiKey: input.apiKey || stored || undefined, name: "test" };
      if (target.kind === "openai-compatible" && !target.baseUrl)
        throw new CatalogError("INVALID_INPUT", "baseUrl: an OpenAI-compatible provider needs a base URL");
      if (target.baseUrl && !(URL.canParse(target.baseUrl) && /^https?:$/.test(new URL(target.baseUrl).protocol)))
        throw new CatalogError("INVALID_INPUT", "baseUrl: must be an http:// or https:// URL");
    }
    const started = performance.now();
    const result = await listProviderModels(target.kind, { ...target, timeoutMs: this.deps.testTimeoutMs ?? 15_000 });
    const latencyMs = Math.round(performance.now() - started);
    if (result.ok) return { ok: true, models: result.models, latencyMs };
    const e = result.error;
    return {
      ok: false,
      models: [],
      latencyMs,
      error: { kind: e.kind, message: failureWords(e.kind, e.message, target.baseUrl), ...(e.status ? { status: e.status } : {}) },
    };
  }

  /** Models with their prices, for the Models page. */
  async models(): Promise<Array<ModelView & { prices: z.infer<typeof PriceFields> | null }>> {
    const [models, prices] = await Promise.all([
      listModels(this.deps.db),
      this.deps.db.modelPrice.findMany({
        select: { model: true, inputPerMTok: true, outputPerMTok: true, cacheReadPerMTok: true, cacheWritePerMTok: true },
      }),
    ]);
    const byRef = new Map(prices.map(({ model, ...p }) => [model, p]));
    return models.map((m) => ({ ...m, prices: byRef.get(m.ref) ?? null }));
  }

  async saveModel(raw: SaveModelInput, actor: CatalogActor) {
    const input = SaveModelInput.parse(raw);
    const view = await saveModel(this.deps.db, input, actor);
    if (input.prices) await this.deps.setPrice({ model: view.ref, ...input.prices }, actor);
    await this.deps.catalog.reload();
    return view;
  }

  async deleteModel(ref: string, actor: CatalogActor) {
    await deleteModel(this.deps.db, ref, actor);
    await this.deps.catalog.reload();
  }

  /**
   * Models auto leans away from: each with its failures in a row, the last one in words, and until when it is
   * tried only after every other candidate (docs/models.md#failover-cooldowns-and-the-circuit-breaker).
   */
  health(): Array<ModelHealth & { words: string }> {
    const snapshot = this.deps.catalog.snapshot;
    return (this.deps.health?.() ?? []).map((h) => {
      const model = snapshot.models.get(h.ref);
      const baseUrl = model ? (snapshot.providers.get(model.provider)?.baseUrl ?? undefined) : undefined;
      return { ...h, words: failureWords(h.kind, h.message, baseUrl) };
    });
  }

  routing() {
    return getRouting(this.deps.db);
  }

  async setRouting(input: RoutingConfigInput, actor: CatalogActor) {
    const saved = await setRouting(this.deps.db, input, actor);
    await this.deps.catalog.reload();
    return saved;
  }

  /** What a person launching a run may pick: "auto" when models are configured, every enabled model, the scripted demos. */
  options(): { models: ModelOption[]; routingAvailable: boolean } {
    const snap = this.deps.catalog.snapshot;
    const configured: ModelOption[] = [...snap.models.values()]
      .filter((m) => m.enabled && snap.providers.get(m.provider)?.enabled)
      .map((m) => ({ ref: m.ref, label: `${m.provider} · ${m.modelId}`, scripted: false, family: m.family }));
    const scripted: ModelOption[] = Object.keys(BUILTIN_SCENARIOS).map((s) => ({
      ref: `scripted/${s}`,
      label: `scripted · ${s} (demo, no model called)`,
      scripted: true,
      family: null,
    }));
    return { models: [...configured, ...scripted], routingAvailable: configured.length > 0 };
  }
}
