// CLI commands for model configuration (docs/models.md#cli-admin-token), over
// REST v1 as an admin: provider add|list|test|remove and model add|list|remove,
// as entries of the CLI's command table (./cli-commands.ts). `--api-key -`
// reads the key from standard input, so it stays out of the shell's history.
import { CliError, ok } from "./cli-error";
import { given, stdin, type Body } from "./cli-input";
import type { CliCommand } from "./cli-commands";

export const MODEL_OPTIONS = {
  kind: { type: "string" },
  "base-url": { type: "string" },
  "api-key": { type: "string" },
  "self-hosted": { type: "boolean" },
  provider: { type: "string" },
  id: { type: "string" },
  family: { type: "string" },
  context: { type: "string" },
  strength: { type: "string" },
  "input-price": { type: "string" },
  "output-price": { type: "string" },
  "no-tools": { type: "boolean" },
  vision: { type: "boolean" },
  model: { type: "string" },
  complexity: { type: "string" },
} as const;

type Options = typeof MODEL_OPTIONS;
type Values = { [K in keyof Options]?: Options[K]["type"] extends "boolean" ? boolean : string } & { name?: string; json?: boolean };

function need<K extends keyof Values>(values: Values, ...names: K[]): asserts values is Values & Required<Pick<Values, K>> {
  const missing = names.filter((n) => values[n] === undefined || values[n] === "");
  if (missing.length) throw new CliError(`this command needs ${missing.map((n) => `--${n}`).join(" and ")}`);
}

function number(values: Values, name: keyof Values): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n)) throw new CliError(`--${name} must be a number (got ${JSON.stringify(raw)})`);
  return n;
}

function apiKey(values: Values): string | undefined {
  const key = values["api-key"];
  if (key !== "-") return key;
  const read = stdin.read().trim();
  if (!read) throw new CliError("--api-key - read nothing from standard input");
  return read;
}

const printer = (values: Values) => (data: unknown, text: string) => console.log(values.json ? JSON.stringify(data) : text);

export const MODEL_COMMANDS: CliCommand<Values>[] = [
  {
    command: "provider",
    sub: "add",
    usage: "--kind openai|anthropic|openai-compatible --name N [--base-url U] [--api-key K | --api-key -] [--self-hosted] [--json]",
    description: "Add a model provider (admins); --api-key - reads the key from standard input.",
    async run({ api, values }) {
      need(values, "kind", "name");
      const p = await ok(
        api.POST("/api/v1/providers", {
          body: {
            name: values.name,
            kind: given<Body<"/api/v1/providers", "post">["kind"]>(values.kind),
            baseUrl: values["base-url"],
            apiKey: apiKey(values),
            selfHosted: !!values["self-hosted"],
          },
        }),
      );
      printer(values)(
        p,
        `Provider ${p.name} (${p.kind}) added${p.apiKeyMasked ? `, key ${p.apiKeyMasked}` : ""}. Test it with: npm run rein -- provider test --name ${p.name}`,
      );
    },
  },
  {
    command: "provider",
    sub: "list",
    usage: "[--json]",
    description: "List the model providers, keys masked (admins).",
    async run({ api, values }) {
      const { providers } = await ok(api.GET("/api/v1/providers"));
      if (values.json) return console.log(JSON.stringify(providers));
      if (providers.length === 0) return console.log("No providers. Runs use the built-in scripted demo model.");
      for (const p of providers)
        console.log(
          `${p.name.padEnd(16)} ${p.kind.padEnd(18)} ${(p.baseUrl ?? "(default URL)").padEnd(40)} key ${p.apiKeyMasked ?? "none"}  ${p.modelCount} models${p.enabled ? "" : "  (disabled)"}`,
        );
    },
  },
  {
    command: "provider",
    sub: "test",
    usage: "--name N [--json]",
    description: "Ask a provider for its models with the stored key (admins).",
    async run({ api, values }) {
      need(values, "name");
      const r = await ok(api.POST("/api/v1/providers/{name}/test", { params: { path: { name: values.name } } }));
      if (!r.ok)
        throw new CliError(
          `${values.name} does not work: ${r.error?.kind}${r.error?.status ? ` (${r.error.status})` : ""}: ${r.error?.message}`,
        );
      printer(values)(
        r,
        `${values.name} works (${r.latencyMs} ms): ${r.models.length} models\n${r.models.map((m) => `  ${m}`).join("\n")}`,
      );
    },
  },
  {
    command: "provider",
    sub: "remove",
    usage: "--name N [--json]",
    description: "Delete a provider with its models and its key (admins).",
    async run({ api, values }) {
      need(values, "name");
      await ok(api.DELETE("/api/v1/providers/{name}", { params: { path: { name: values.name } } }));
      printer(values)({ ok: true }, `Provider ${values.name} removed, with its models and key`);
    },
  },
  {
    command: "model",
    sub: "add",
    usage:
      "--provider N --id MODEL_ID --family F [--context TOKENS] [--strength 0..1] [--input-price USD_PER_MTOK --output-price USD_PER_MTOK] [--no-tools] [--vision] [--json]",
    description: "Add or change a model of a provider (admins).",
    async run({ api, values }) {
      need(values, "provider", "id", "family");
      const inputPrice = number(values, "input-price");
      const outputPrice = number(values, "output-price");
      if ((inputPrice === undefined) !== (outputPrice === undefined)) throw new CliError("give --input-price and --output-price together");
      const body = {
        provider: values.provider,
        modelId: values.id,
        family: values.family,
        contextWindow: number(values, "context"),
        strength: number(values, "strength"),
        tools: !values["no-tools"],
        vision: !!values.vision,
        ...(inputPrice !== undefined && outputPrice !== undefined
          ? { prices: { inputPerMTok: inputPrice, outputPerMTok: outputPrice } }
          : {}),
      };
      const m = await ok(api.POST("/api/v1/models", { body }));
      printer(values)(
        m,
        `Model ${m.ref} saved (family ${m.family}). Launch a run on it with: npm run rein -- run --goal G --model ${m.ref}`,
      );
    },
  },
  {
    command: "model",
    sub: "list",
    usage: "[--json]",
    description: "List the configured models with their prices (admins).",
    async run({ api, values }) {
      const { models } = await ok(api.GET("/api/v1/models"));
      if (values.json) return console.log(JSON.stringify(models));
      if (models.length === 0) return console.log("No models configured.");
      for (const m of models) {
        const price = m.prices ? `$${m.prices.inputPerMTok}/$${m.prices.outputPerMTok} per MTok` : "unpriced";
        console.log(
          `${m.ref.padEnd(36)} ${m.family.padEnd(10)} ctx ${String(m.contextWindow).padEnd(8)} strength ${m.strength}  ${price}${m.enabled ? "" : "  (disabled)"}`,
        );
      }
    },
  },
  {
    command: "model",
    sub: "remove",
    usage: "--provider N --id MODEL_ID [--json]",
    description: "Delete a model (admins).",
    async run({ api, values }) {
      need(values, "provider", "id");
      await ok(api.DELETE("/api/v1/models/{provider}/{modelId}", { params: { path: { provider: values.provider, modelId: values.id } } }));
      printer(values)({ ok: true }, `Model ${values.provider}/${values.id} removed`);
    },
  },
];
