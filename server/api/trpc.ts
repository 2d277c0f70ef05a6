// tRPC setup: context, error shape, and the access chain
// publicProcedure (links anyone may open) and, for everything else,
// authentication -> role procedures.
import { initTRPC, TRPCError } from "@trpc/server";
import { ChannelError, MAX_JSON_DEPTH, jsonInputProblem, type ChannelDispatcher, type Webhooks } from "@/server/channels";
import superjson from "superjson";
import { ZodError } from "zod";
import type { Db } from "@/server/db";
import { PeopleError, gateRefusal, type Actor, type LinkThrottle, type PeopleErrorCode, type Role } from "@/server/identity";
import { ArchivedAgentError, InvalidTransitionError, RunNotFoundError, SteeringConflictError, TeamAccessError, UnknownAgentError, type Kernel } from "@/server/kernel";
import { AgentError } from "@/server/agents";
import { DatasetError } from "@/server/evals";
import { ExtensionError, formatProblem, ImprovementError, RepositoryError, SkillError, type ChangeRequests, type ExtensionRegistry, type SkillLibrary } from "@/server/improve";
import { CatalogError, UnknownModelError, type ModelAdmin } from "@/server/models";
import { WorkspaceFileError, type WorkspaceFileErrorCode } from "@/server/tools";
import type { PodPool, SandboxStatus } from "@/server/compute";
import { HumanRequestError, LinkError, type Hitl } from "@/server/hitl";
import type { TierRuntime } from "@/server/tiers";
import { SecretNotFoundError, SecretValidationError, type SecretKeyring } from "@/server/secrets";
import { McpError, type McpServers } from "@/server/mcp";
import type { Cluster } from "@/server/cluster";
import { MemoryError } from "@/server/memory";

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

/** What the Improvements pages change in the running server. */
export interface ImproveRuntime {
  live: { unload(name: string): void };
  reload(improvementId: string): Promise<void>;
  promote(improvementId: string, by: { id: string; name: string }, channel: string): Promise<boolean>;
  /** The skill library whose cache of active skills the kernel reads every turn. */
  skills?: SkillLibrary;
  /** Change requests to repositories (tier 4); null where they do not run. */
  changes?: ChangeRequests | null;
  /** The extension registry whose installed extensions the kernel offers every turn. */
  extensionRegistry?: ExtensionRegistry;
}

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
      const zod = error.cause instanceof ZodError ? error.cause : null;
      // An agent spec's, a dataset's or a repository's problems, by field, for the form to show beside each.
      const cause = error.cause instanceof AgentError || error.cause instanceof DatasetError || error.cause instanceof RepositoryError ? error.cause : null;
      const skill = error.cause instanceof SkillError && error.cause.problems.length ? error.cause.problems.map((p) => ({ path: p.field ?? "text", message: formatProblem(p) })) : undefined;
      const mcp = (error.cause instanceof McpError || error.cause instanceof ChannelError) && error.cause.problems?.length ? error.cause.problems.map((p) => ({ path: p.field, message: p.message })) : undefined;
      const problems = cause?.problems.length ? cause.problems.map((p) => ({ path: p.field, message: p.message })) : (skill ?? mcp);
      return {
        ...shape,
        message: zod ? zod.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; ") : shape.message,
        data: { ...shape.data, stack: undefined, issues: zod?.issues.map((i) => ({ path: i.path.join("."), message: i.message })) ?? problems },
      };
    },
  });

export const createCallerFactory = t.createCallerFactory;
export const router = t.router;

const FILE_ERROR_CODES: Record<WorkspaceFileErrorCode, TRPCError["code"]> = {
  NO_WORKSPACE: "PRECONDITION_FAILED",
  NO_REPOSITORY: "PRECONDITION_FAILED",
  BAD_PATH: "BAD_REQUEST",
  OUTSIDE_WORKSPACE: "BAD_REQUEST",
  NOT_FOUND: "NOT_FOUND",
  NOT_A_FILE: "BAD_REQUEST",
  BINARY: "UNPROCESSABLE_CONTENT",
  TOO_LARGE: "PAYLOAD_TOO_LARGE",
  CONFLICT: "CONFLICT",
  ARCHIVE_FAILED: "INTERNAL_SERVER_ERROR",
  SANDBOX_UNAVAILABLE: "PRECONDITION_FAILED",
};

const REPOSITORY_CODES: Record<RepositoryError["code"], TRPCError["code"]> = {
  BAD_REQUEST: "BAD_REQUEST",
  NOT_FOUND: "NOT_FOUND",
  FORBIDDEN: "FORBIDDEN",
  CONFLICT: "CONFLICT",
  SANDBOX_UNAVAILABLE: "PRECONDITION_FAILED",
};

/** MCP servers' and channels' refusals share their codes. */
const ADMIN_SERVICE_CODES: Record<McpError["code"], TRPCError["code"]> = {
  NOT_FOUND: "NOT_FOUND",
  FORBIDDEN: "FORBIDDEN",
  INVALID: "BAD_REQUEST",
  CONFLICT: "CONFLICT",
  UNAVAILABLE: "PRECONDITION_FAILED",
};

const HUMAN_REQUEST_CODES: Record<HumanRequestError["code"], TRPCError["code"]> = {
  NOT_FOUND: "NOT_FOUND",
  CLOSED: "CONFLICT",
  FORBIDDEN: "FORBIDDEN",
  INVALID_DECISION: "BAD_REQUEST",
  INVALID_TRANSITION: "CONFLICT",
};

const PEOPLE_CODES: Record<PeopleErrorCode, TRPCError["code"]> = {
  NOT_FOUND: "NOT_FOUND",
  CONFLICT: "CONFLICT",
  FORBIDDEN: "FORBIDDEN",
  INVALID: "BAD_REQUEST",
  LINK_UNKNOWN: "NOT_FOUND",
  LINK_EXPIRED: "BAD_REQUEST",
  LINK_USED: "CONFLICT",
  LINK_REVOKED: "CONFLICT",
  THROTTLED: "TOO_MANY_REQUESTS",
};

/** Domain errors become the matching tRPC codes with their clear messages. */
const domainErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) {
    const cause = result.error.cause;
    const code =
      cause instanceof RunNotFoundError ? "NOT_FOUND"
      : cause instanceof AgentError ? cause.code
      : cause instanceof DatasetError ? cause.code
      : cause instanceof ImprovementError ? cause.code
      : cause instanceof SkillError ? cause.code
      : cause instanceof ExtensionError ? cause.code
      : cause instanceof RepositoryError ? REPOSITORY_CODES[cause.code]
      : cause instanceof McpError ? ADMIN_SERVICE_CODES[cause.code]
      : cause instanceof ChannelError ? ADMIN_SERVICE_CODES[cause.code]
      : cause instanceof UnknownAgentError || cause instanceof ArchivedAgentError || cause instanceof UnknownModelError || cause instanceof ZodError || cause instanceof SecretValidationError ? "BAD_REQUEST"
      : cause instanceof SecretNotFoundError ? "NOT_FOUND"
      : cause instanceof TeamAccessError ? (cause.code === "ARCHIVED" ? "CONFLICT" : cause.code)
      : cause instanceof InvalidTransitionError || cause instanceof SteeringConflictError ? "CONFLICT"
      : cause instanceof CatalogError ? (cause.code === "INVALID" ? "BAD_REQUEST" : cause.code)
      : cause instanceof WorkspaceFileError ? FILE_ERROR_CODES[cause.code]
      : cause instanceof HumanRequestError ? HUMAN_REQUEST_CODES[cause.code]
      : cause instanceof PeopleError ? PEOPLE_CODES[cause.code]
      : cause instanceof MemoryError ? cause.code
      : cause instanceof LinkError ? (cause.code === "WRONG_ROLE" ? "FORBIDDEN" : cause.code === "NOT_FOUND" ? "NOT_FOUND" : cause.code === "USED" || cause.code === "CLOSED" ? "CONFLICT" : "BAD_REQUEST")
      : null;
    if (code) throw new TRPCError({ code, message: cause!.message, cause });
  }
  return result;
});

const authenticated = t.middleware(({ ctx, next }) => {
  if (!ctx.actor) throw new TRPCError({ code: "UNAUTHORIZED", message: "Log in or send an API token" });
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
    if (refusal) throw new TRPCError({ code: "FORBIDDEN", message: refusal });
    return next();
  });
}

/** Input nested absurdly deep, or text with a lone surrogate, is a clear 400 before any procedure sees it. */
const wellFormedInput = t.middleware(async ({ getRawInput, next }) => {
  const problem = jsonInputProblem(await getRawInput(), MAX_JSON_DEPTH)?.replace(/^body/, "input");
  if (problem) throw new TRPCError({ code: "BAD_REQUEST", message: `The input cannot be taken: ${problem}` });
  return next();
});

/** Needs no login: only what a link's own token unlocks (invitations.inspect/accept). */
export const publicProcedure = t.procedure.use(wellFormedInput).use(domainErrors).meta({ minRole: "none" });

const protectedBase = t.procedure.use(wellFormedInput).use(domainErrors).use(authenticated);

export const viewerProcedure = protectedBase.meta({ minRole: "viewer" }).use(requireRole("viewer"));
export const operatorProcedure = protectedBase.meta({ minRole: "operator" }).use(requireRole("operator"));
export const approverProcedure = protectedBase.meta({ minRole: "approver" }).use(requireRole("approver"));
export const adminProcedure = protectedBase.meta({ minRole: "admin" }).use(requireRole("admin"));
