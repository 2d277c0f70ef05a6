// The model catalog (docs/models.md#routing): providers and models admins configure,
// the routing rules per task class, and sensitivity pools per team.
import { DomainError } from "@/server/errors";
import { z } from "zod";
import type { ProviderKind } from "../providers";
import type { TaskClass } from "../types";

export const TASK_CLASSES: readonly TaskClass[] = ["plan", "code", "classify", "summarize", "judge"];

/** "<provider name>/<model id>", the one way a model is named in runs, rules and prices. */
export type ModelRef = string;

export const PROVIDER_NAME = /^[a-z0-9][a-z0-9._-]{0,62}$/;

export interface ProviderView {
  id: string;
  name: string;
  kind: ProviderKind;
  baseUrl: string | null;
  /** The key, masked ("sk-…9f2c"); the clear value never leaves the server. */
  apiKeyMasked: string | null;
  selfHosted: boolean;
  enabled: boolean;
  modelCount: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface ModelView {
  id: string;
  ref: ModelRef;
  provider: string;
  modelId: string;
  family: string;
  contextWindow: number;
  maxOutputTokens: number | null;
  tools: boolean;
  vision: boolean;
  streaming: boolean;
  strength: number;
  enabled: boolean;
}

const Ref = z
  .string()
  .trim()
  .min(3)
  .max(200)
  .regex(/^[a-z0-9][a-z0-9._-]*\/\S+$/, 'must be "<provider>/<model id>"');

export const RoutingRule = z.object({
  /** Tried in this order ("ordered") or cheapest first among the strong enough ("cheapest"). */
  strategy: z.enum(["ordered", "cheapest"]).default("ordered"),
  candidates: z.array(Ref).max(20, "at most 20 candidates per task class").default([]),
});
export type RoutingRule = z.infer<typeof RoutingRule>;

export const SensitivityPool = z.object({
  name: z
    .string()
    .trim()
    .min(1, "a pool needs a name")
    .max(60)
    .regex(/^[A-Za-z0-9 ._-]+$/, "letters, digits, spaces and . _ - only"),
  /** Every model of a self-hosted provider belongs to the pool, now and later. */
  selfHosted: z.boolean().default(false),
  models: z.array(Ref).max(100).default([]),
});
export type SensitivityPool = z.infer<typeof SensitivityPool>;

export const RoutingConfig = z
  .object({
    rules: z.partialRecord(z.enum(["plan", "code", "classify", "summarize", "judge"]), RoutingRule).default({}),
    pools: z.array(SensitivityPool).max(50).default([]),
    /** team id → pool name: the team's runs use only models in that pool. */
    teamPools: z.record(z.string().min(1), z.string().min(1)).default({}),
  })
  .superRefine((c, ctx) => {
    const names = new Set<string>();
    c.pools.forEach((p, i) => {
      if (names.has(p.name)) ctx.addIssue({ code: "custom", path: ["pools", i, "name"], message: `the pool "${p.name}" is defined twice` });
      names.add(p.name);
    });
    for (const [team, pool] of Object.entries(c.teamPools)) {
      if (!names.has(pool)) ctx.addIssue({ code: "custom", path: ["teamPools", team], message: `no pool is named "${pool}"` });
    }
  });
export type RoutingConfig = z.infer<typeof RoutingConfig>;
export type RoutingConfigInput = z.input<typeof RoutingConfig>;

export const EMPTY_ROUTING: RoutingConfig = { rules: {}, pools: [], teamPools: {} };

export class CatalogError extends DomainError {
  constructor(code: "NOT_FOUND" | "CONFLICT" | "INVALID_INPUT", message: string) {
    super(code, message);
    this.name = "CatalogError";
  }
}
