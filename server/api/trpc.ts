// tRPC setup: context, error shape, and the access chain
// publicProcedure (links anyone may open) and, for everything else,
// authentication -> role procedures.
import { initTRPC, TRPCError } from "@trpc/server";
import { MAX_JSON_DEPTH, jsonInputProblem, type ChannelDispatcher, type ImproveRuntime, type Webhooks } from "@/server/channels";
import superjson from "superjson";
import { DomainError, toDomainError, trpcErrorOf } from "@/server/errors";
import type { Db } from "@/server/db";
import { gateRefusal, type Actor, type LinkThrottle, type Role } from "@/server/identity";
import type { Kernel } from "@/server/kernel";
import type { ModelAdmin } from "@/server/models";
import type { PodPool, SandboxStatus } from "@/server/compute";
import type { Hitl } from "@/server/hitl";
import type { TierRuntime } from "@/server/tiers";
import type { SecretKeyring } from "@/server/secrets";
import type { McpServers } from "@/server/mcp";
import type { Cluster } from "@/server/cluster";

export interface Context {
  db: Db;
  kernel: Kernel;
  /** Terminal pods and the sandbox's status; absent when no compute tier runs (tests). */
  compute?: { terminals: PodPool; sandbox: SandboxStatus };
  actor: Actor | null;
  /** Human requests and resume links; absent where no broker runs (some tests). */
  hitl?: Hitl;
  /** The PolicyGate in force, told when an admin saves a new version. */
  policy?: { invalidate(): void };
  /** The telemetry service, told to reload the PriceBook when an admin changes a price. */
  telemetry?: { loadPrices(): Promise<void> };
  /** Re-applies the OTLP export setting after an admin changed it. */
  telemetryControl?: { applyOtlp(): Promise<void> };
  /** Providers, models and routing (admins), and the models a run may use. */
  models?: ModelAdmin;
  /** The running compute tiers: availability, and the warm pools resized when an admin saves the tier settings. */
  tiers?: TierRuntime;
  /** Seals the secrets admins add (Settings → Secrets); absent where the server has none (some tests). */
  keyring?: SecretKeyring;
  /** Where invitation and reset links point: REIN_PUBLIC_URL, else the request's own origin. */
  linkBase?: string;
  /** The client's address as the socket saw it (throttling bad links); null when unknown. */
  clientAddress?: string | null;
  /** Slows down guessing at invitation and reset links; absent in tests that do not exercise it. */
  linkThrottle?: LinkThrottle;
  /** The experiment runner, told when an experiment was started (it also finds new ones on its own). */
  experiments?: { wake(experimentId: string): void };
  /** Self-improvement: the live runtime tools, reloads and promotions; absent where it does not run (some tests). */
  improve?: ImproveRuntime;
  /** MCP servers attached as tool sources (Settings › MCP servers); absent where they do not run (some tests). */
  mcp?: McpServers;
  /** Outbound channels (Settings › Channels): webhooks and the dispatcher that feeds them; absent where they do not run (some tests). */
  channels?: { webhooks: Webhooks; dispatcher?: ChannelDispatcher };
  /** Settings › System: this process's place in the deployment (cluster null: one process) and Rein's version; absent in some tests. */
  system?: SystemInfo;
}

export interface SystemInfo {
  cluster: Cluster | null;
  version: string;
}

/** What the Improvements pages change in the running server: the same runtime the REST routes receive. */
export type { ImproveRuntime };

export interface Meta {
  /** The least role that may call the procedure; every procedure declares one ("none": no login, e.g. invitation links). */
  minRole: Role | "none";
}

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    transformer: superjson,
    errorFormatter({ shape, error }) {
      // Every refusal reaches here as a DomainError cause (domainErrors below); its issues go beside the form's fields.
      const domain = error.cause instanceof DomainError ? error.cause : null;
      return { ...shape, data: { ...shape.data, stack: undefined, issues: domain?.issues } };
    },
  });

export const createCallerFactory = t.createCallerFactory;
export const router = t.router;

/**
 * Every error of a procedure leaves through the one table (docs/development.md#errors):
 * a DomainError or a schema's refusal gets its tRPC code; anything else that was not
 * tRPC's own becomes an internal error whose message stays in the server log.
 */
const domainErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) {
    const mapped = trpcErrorOf(result.error.cause);
    if (mapped) throw mapped;
    if (result.error.code === "INTERNAL_SERVER_ERROR") {
      const domain = toDomainError(result.error.cause ?? result.error, "tRPC");
      throw new TRPCError({ code: "INTERNAL_SERVER_ERROR", message: domain.message, cause: domain });
    }
  }
  return result;
});

const authenticated = t.middleware(({ ctx, next }) => {
  if (!ctx.actor) throw new DomainError("UNAUTHORIZED", "Log in or send an API token");
  return next({ ctx: { ...ctx, actor: ctx.actor } });
});

/**
 * The gate every procedure declares. Admin means a global admin; a lesser
 * role is enough when the person has it in any team (the procedure then
 * checks the team of what it touches with roleIn, as runs and requests do).
 */
function requireRole(role: Role) {
  return t.middleware(({ ctx, next }) => {
    const actor = (ctx as Context).actor!;
    const refusal = gateRefusal(actor, role);
    if (refusal) throw new DomainError("FORBIDDEN", refusal);
    return next();
  });
}

/** Input nested absurdly deep, or text with a lone surrogate, is a clear 400 before any procedure sees it. */
const wellFormedInput = t.middleware(async ({ getRawInput, next }) => {
  const problem = jsonInputProblem(await getRawInput(), MAX_JSON_DEPTH)?.replace(/^body/, "input");
  if (problem) throw new DomainError("INVALID_INPUT", `The input cannot be taken: ${problem}`);
  return next();
});

/** Needs no login: only what a link's own token unlocks (invitations.inspect/accept). */
export const publicProcedure = t.procedure.use(domainErrors).use(wellFormedInput).meta({ minRole: "none" });

const protectedBase = t.procedure.use(domainErrors).use(wellFormedInput).use(authenticated);

export const viewerProcedure = protectedBase.meta({ minRole: "viewer" }).use(requireRole("viewer"));
export const operatorProcedure = protectedBase.meta({ minRole: "operator" }).use(requireRole("operator"));
export const approverProcedure = protectedBase.meta({ minRole: "approver" }).use(requireRole("approver"));
export const adminProcedure = protectedBase.meta({ minRole: "admin" }).use(requireRole("admin"));
