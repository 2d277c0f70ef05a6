// The catalog in memory: providers (keys decrypted, held only in this
// process), models, routing and prices, loaded from the database at start and
// again whenever an admin changes them, so routing a call reads no database.
import type { Db } from "@/server/db";
import { getSecretValue, type NamedSecret, type SecretKeyring } from "@/server/secrets";
import type { ProviderKind } from "../providers";
import { getRouting } from "./routing-store";
import { keySecretName, listModels } from "./store";
import type { RoutingSnapshot, RoutableProvider } from "./routing";
import { EMPTY_ROUTING, type ModelRef, type ModelView } from "./types";

export interface CatalogProvider extends RoutableProvider {
  kind: ProviderKind;
  baseUrl: string | null;
  /** In clear, for calls; never sent anywhere else. */
  apiKey: string | null;
}

export interface CatalogSnapshot extends RoutingSnapshot {
  providers: Map<string, CatalogProvider>;
  /** Bumped on every load, so cached backends are rebuilt with new keys or URLs. */
  version: number;
}

export const emptySnapshot = (): CatalogSnapshot => ({
  providers: new Map(),
  models: new Map(),
  routing: EMPTY_ROUTING,
  blendedPrice: () => null,
  version: 0,
});

export class ModelCatalog {
  private current: CatalogSnapshot = emptySnapshot();
  private loading: Promise<void> | null = null;
  private readonly keyListeners = new Set<(keys: NamedSecret[]) => void>();

  constructor(private readonly deps: { db: Db; keyring: SecretKeyring; log?: { error(message: string, err?: unknown): void } }) {}

  get snapshot(): CatalogSnapshot {
    return this.current;
  }

  /**
   * The providers' keys now and after every reload, e.g. for the redactor, so
   * a key saved a moment ago is already hidden wherever it might appear.
   */
  onKeys(listener: (keys: NamedSecret[]) => void): () => void {
    this.keyListeners.add(listener);
    listener(this.keys());
    return () => this.keyListeners.delete(listener);
  }

  private keys(): NamedSecret[] {
    return [...this.current.providers.values()].flatMap((p) => (p.apiKey ? [{ name: keySecretName(p.name), value: p.apiKey }] : []));
  }

  /** Reads everything again; concurrent callers share one read, and a reload asked for during a read runs after it. */
  async reload(): Promise<void> {
    const previous = this.loading ?? Promise.resolve();
    const next = previous.catch(() => {}).then(() => this.read());
    this.loading = next;
    try {
      await next;
    } finally {
      if (this.loading === next) this.loading = null;
    }
  }

  private async read(): Promise<void> {
    const { db, keyring } = this.deps;
    const [rows, models, routing, prices] = await Promise.all([
      db.provider.findMany({ select: { name: true, kind: true, baseUrl: true, apiKeySecret: true, selfHosted: true, enabled: true } }),
      listModels(db),
      getRouting(db),
      db.modelPrice.findMany({ select: { model: true, inputPerMTok: true, outputPerMTok: true } }),
    ]);
    const providers = new Map<string, CatalogProvider>();
    for (const row of rows) {
      let apiKey: string | null = null;
      if (row.apiKeySecret) {
        try {
          apiKey = await getSecretValue(db, keyring, row.apiKeySecret, { touch: false });
        } catch (err) {
          // A key sealed with another key file: the provider stays listed, and its calls fail with an auth error that says so.
          this.deps.log?.error(`The API key of the provider "${row.name}" cannot be read with this server's secret key`, err);
        }
      }
      providers.set(row.name, {
        name: row.name,
        kind: row.kind as ProviderKind,
        baseUrl: row.baseUrl,
        apiKey,
        selfHosted: row.selfHosted,
        enabled: row.enabled,
      });
    }
    const priceOf = new Map(prices.map((p) => [p.model, p.inputPerMTok + p.outputPerMTok]));
    this.current = {
      providers,
      models: new Map<ModelRef, ModelView>(models.map((m) => [m.ref, m])),
      routing,
      blendedPrice: (ref) => priceOf.get(ref) ?? null,
      version: this.current.version + 1,
    };
    const keys = this.keys();
    this.keyListeners.forEach((l) => l(keys));
  }
}
