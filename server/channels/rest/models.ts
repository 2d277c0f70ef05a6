// REST v1 for model configuration (docs/models.md, docs/api.md), for admins and
// automation: the same service, validation and audit as Settings → Models.
// API keys are accepted and only ever returned masked.
import { z } from "zod";
import { PROVIDER_KINDS, ProviderInput, ProviderUpdate, RoutingConfig, SaveModelInput, TASK_CLASSES } from "@/server/models";
import type { Actor } from "@/server/identity";
import { defineRoute, type Route } from "./contract";
import { Instant, Ok } from "./schemas";

/** Who changes the models, and through which client (the CLI says so in a header), for the audit log. */
const who = ({ actor, channel }: { actor: Actor; channel: "cli" | "api" }) => ({
  userId: actor.userId,
  name: actor.name || actor.email,
  channel,
});

const ProviderParams = z.object({ name: z.string().describe("The provider's name") });

const Provider = z
  .object({
    id: z.string(),
    name: z.string().describe("The first part of its models' names, e.g. local in local/llama3"),
    kind: z.enum(PROVIDER_KINDS),
    baseUrl: z.string().nullable(),
    apiKeyMasked: z.string().nullable().describe("The key is never returned in clear"),
    selfHosted: z.boolean(),
    enabled: z.boolean(),
    modelCount: z.number().int(),
    createdAt: Instant,
    updatedAt: Instant,
  })
  .meta({ id: "ModelProvider" });

const Model = z
  .object({
    id: z.string(),
    ref: z.string().describe("<provider>/<model id>: how runs, rules and prices name it"),
    provider: z.string(),
    modelId: z.string(),
    family: z.string().describe("e.g. gpt, claude, llama: judges never share the family of the agent they judge"),
    contextWindow: z.number().int(),
    maxOutputTokens: z.number().int().nullable(),
    tools: z.boolean(),
    vision: z.boolean(),
    streaming: z.boolean(),
    strength: z.number().describe("0 to 1: routing puts models at least as strong as a task's complexity first"),
    enabled: z.boolean(),
  })
  .meta({ id: "Model" });

const Prices = z
  .object({ inputPerMTok: z.number(), outputPerMTok: z.number(), cacheReadPerMTok: z.number(), cacheWritePerMTok: z.number() })
  .describe("USD per million tokens");

const Routing = z
  .object({
    rules: z
      .partialRecord(
        z.enum(TASK_CLASSES),
        z.object({
          strategy: z.enum(["ordered", "cheapest"]).describe("Tried in order, or cheapest first among the strong enough"),
          candidates: z.array(z.string()).describe('"<provider>/<model id>" of each'),
        }),
      )
      .describe("The rule of each task class"),
    pools: z
      .array(
        z.object({
          name: z.string(),
          selfHosted: z.boolean().describe("Every model of a self-hosted provider belongs to the pool"),
          models: z.array(z.string()),
        }),
      )
      .describe("Sensitivity pools"),
    teamPools: z.record(z.string(), z.string()).describe("team id → pool name: the team's runs use only models in that pool"),
    updatedAt: Instant.nullable().describe("null until routing is first saved"),
  })
  .meta({ id: "ModelRouting" });

export const MODEL_ROUTES: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/providers",
    minRole: "admin",
    summary: "Model providers, keys masked",
    response: z.object({ providers: z.array(Provider) }),
    handle: async ({ models }) => ({ providers: await models.providers() }),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/providers",
    minRole: "admin",
    status: 201,
    summary: "Add a model provider",
    description:
      "baseUrl is required for openai-compatible (e.g. http://localhost:11434/v1); apiKey for openai and anthropic, stored encrypted.",
    body: ProviderInput,
    response: Provider,
    responseDescription: "The provider",
    errors: { 409: "A provider has this name already" },
    handle: ({ body, actor, channel, models }) => models.createProvider(body, who({ actor, channel })),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/providers/{name}",
    minRole: "admin",
    summary: "A model provider",
    params: ProviderParams,
    response: Provider,
    responseDescription: "The provider",
    handle: ({ params, models }) => models.provider(params.name),
  }),
  defineRoute({
    method: "PATCH",
    path: "/api/v1/providers/{name}",
    minRole: "admin",
    summary: "Change a model provider",
    description: "Any of baseUrl, apiKey (null removes it), selfHosted, enabled.",
    params: ProviderParams,
    body: ProviderUpdate.omit({ name: true }).strict(),
    response: Provider,
    responseDescription: "The provider",
    handle: ({ params, body, actor, channel, models }) => models.updateProvider({ ...body, name: params.name }, who({ actor, channel })),
  }),
  defineRoute({
    method: "DELETE",
    path: "/api/v1/providers/{name}",
    minRole: "admin",
    summary: "Delete a model provider, its models and its key",
    params: ProviderParams,
    response: Ok,
    async handle({ params, actor, channel, models }) {
      await models.deleteProvider(params.name, who({ actor, channel }));
      return { ok: true };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/providers/{name}/test",
    minRole: "admin",
    summary: "Test a provider: ask it for its models with the stored key",
    params: ProviderParams,
    response: z.object({
      ok: z.boolean(),
      models: z.array(z.string()).describe("The model ids the provider lists"),
      latencyMs: z.number().int(),
      error: z.object({ kind: z.string(), message: z.string(), status: z.number().int().optional() }).optional().describe("Why it failed"),
    }),
    handle: ({ params, models }) => models.testProvider({ name: params.name }),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/models",
    minRole: "admin",
    summary: "Configured models with their prices",
    response: z.object({ models: z.array(Model.extend({ prices: Prices.nullable() })) }),
    handle: async ({ models }) => ({ models: await models.models() }),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/models",
    minRole: "admin",
    status: 201,
    summary: "Add or change a model",
    description: "The provider and model id name it. prices are USD per million tokens and go to the price table.",
    body: SaveModelInput,
    response: Model,
    responseDescription: "The model",
    errors: { 404: "No provider has this name; add it first" },
    handle: ({ body, actor, channel, models }) => models.saveModel(body, who({ actor, channel })),
  }),
  // The model id may itself hold slashes (e.g. OpenRouter's "meta-llama/llama-3.3-70b"): {modelId} takes the rest of the path.
  defineRoute({
    method: "DELETE",
    path: "/api/v1/models/{provider}/{modelId}",
    slashed: "modelId",
    minRole: "admin",
    summary: "Delete a model (the model id may contain slashes)",
    response: Ok,
    async handle({ params, actor, channel, models }) {
      await models.deleteModel(`${params.provider}/${params.modelId}`, who({ actor, channel }));
      return { ok: true };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/routing",
    minRole: "admin",
    summary: "Routing rules per task class, sensitivity pools and team pools",
    response: Routing,
    handle: ({ models }) => models.routing(),
  }),
  defineRoute({
    method: "PUT",
    path: "/api/v1/routing",
    minRole: "admin",
    summary: "Replace the routing rules, pools and team pools",
    body: RoutingConfig,
    response: Routing,
    responseDescription: "The saved routing",
    handle: ({ body, actor, channel, models }) => models.setRouting(body, who({ actor, channel })),
  }),
];
