// Configured models on fake OpenAI-compatible servers (one per provider, on
// 127.0.0.1) behind the real router, for judge tests: a catalog snapshot as
// the catalog builds it, so routing, the cross-family rule and the provider
// backends are the ones the server runs.
import {
  DefaultModelRouter,
  RoutingConfig,
  startFakeOpenAI,
  type CatalogProvider,
  type CatalogSnapshot,
  type FakeServer,
  type ModelView,
  type RoutingConfigInput,
} from "@/server/models";

export interface JudgeWorld {
  router: DefaultModelRouter;
  /** A router of its own over the same models (its cooldowns are its own). */
  newRouter(): DefaultModelRouter;
  /** The fake server of each provider. */
  servers: Record<string, FakeServer>;
  /** The model ids each server was asked for, in order. */
  asked(provider: string): string[];
  /** Forgets requests and queued replies. */
  reset(): void;
  close(): Promise<void>;
}

/** Models as "<provider>/<model id>" → family. */
export async function judgeWorld(models: Record<string, string>, routing: RoutingConfigInput = {}): Promise<JudgeWorld> {
  const servers: Record<string, FakeServer> = {};
  const providers = new Map<string, CatalogProvider>();
  const views = new Map<string, ModelView>();
  for (const [ref, family] of Object.entries(models)) {
    const [provider, modelId] = ref.split("/");
    if (!servers[provider]) {
      servers[provider] = await startFakeOpenAI({ models: [] });
      providers.set(provider, {
        name: provider,
        kind: "openai-compatible",
        baseUrl: servers[provider].baseUrl,
        apiKey: null,
        selfHosted: false,
        enabled: true,
      });
    }
    views.set(ref, {
      id: ref,
      ref,
      provider,
      modelId,
      family,
      contextWindow: 128_000,
      maxOutputTokens: null,
      tools: true,
      vision: false,
      streaming: true,
      strength: 0.5,
      enabled: true,
    });
  }
  const snapshot: CatalogSnapshot = {
    providers,
    models: views,
    routing: RoutingConfig.parse(routing),
    blendedPrice: () => null,
    version: 1,
  };
  const newRouter = () => new DefaultModelRouter({ scriptedDelayMs: 0, catalog: { snapshot }, timeoutMs: 5_000 });
  return {
    router: newRouter(),
    newRouter,
    servers,
    asked: (provider) => servers[provider].requests.filter((r) => r.method === "POST").map((r) => r.body.model as string),
    reset: () => Object.values(servers).forEach((s) => s.reset()),
    close: async () => void (await Promise.all(Object.values(servers).map((s) => s.close()))),
  };
}

/** A reply of the fake server with the given text. */
export const says = (text: string, usage = { uncachedInputTokens: 1_000, outputTokens: 50 }) => ({
  type: "reply" as const,
  reply: { text, usage },
});

/** The system and user messages of a chat completions request. */
export function messagesOf(body: { messages: Array<{ role: string; content: unknown }> }): { system: string; user: string } {
  const text = (content: unknown) =>
    typeof content === "string" ? content : (content as Array<{ text?: string }>).map((p) => p.text ?? "").join("");
  const system = body.messages.filter((m) => m.role === "system").map((m) => text(m.content));
  const user = body.messages.filter((m) => m.role === "user").map((m) => text(m.content));
  if (system.length !== 1 || user.length !== 1)
    throw new Error(`expected one system and one user message, got ${JSON.stringify(body.messages.map((m) => m.role))}`);
  return { system: system[0], user: user[0] };
}
