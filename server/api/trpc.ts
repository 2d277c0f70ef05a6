// tRPC setup: context, error shape, and the access chain
// publicProcedure -> protectedProcedure -> role procedures.
import { initTRPC, TRPCError } from "@trpc/server";
import { MAX_JSON_DEPTH, jsonInputProblem } from "@/server/channels";
import superjson from "superjson";
import { ZodError } from "zod";
import type { Db } from "@/server/db";
import { roleAtLeast, type Actor, type Role } from "@/server/identity";
import { ArchivedAgentError, InvalidTransitionError, RunNotFoundError, UnknownAgentError, type Kernel } from "@/server/kernel";
import { AgentError } from "@/server/agents";
import { CatalogError, UnknownModelError, type ModelAdmin } from "@/server/models";
import { WorkspaceFileError, type WorkspaceFileErrorCode } from "@/server/tools";
import type { PodPool, SandboxStatus } from "@/server/compute";
import { HumanRequestError, LinkError, type Hitl } from "@/server/hitl";
import type { TierRuntime } from "@/server/tiers";
import { SecretNotFoundError, SecretValidationError, type SecretKeyring } from "@/server/secrets";

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
}

export interface Meta {
  /** The least role that may call the procedure; every procedure declares one. */
  minRole: Role;
}

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    transformer: superjson,
    errorFormatter({ shape, error }) {
      const zod = error.cause instanceof ZodError ? error.cause : null;
      // An agent spec's problems, by field, for the form to show beside each.
      const problems = error.cause instanceof AgentError && error.cause.problems.length ? error.cause.problems.map((p) => ({ path: p.field, message: p.message })) : undefined;
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

const HUMAN_REQUEST_CODES: Record<HumanRequestError["code"], TRPCError["code"]> = {
  NOT_FOUND: "NOT_FOUND",
  CLOSED: "CONFLICT",
  FORBIDDEN: "FORBIDDEN",
  INVALID_DECISION: "BAD_REQUEST",
  INVALID_TRANSITION: "CONFLICT",
};

/** Domain errors become the matching tRPC codes with their clear messages. */
const domainErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) {
    const cause = result.error.cause;
    const code =
      cause instanceof RunNotFoundError ? "NOT_FOUND"
      : cause instanceof AgentError ? cause.code
      : cause instanceof UnknownAgentError || cause instanceof ArchivedAgentError || cause instanceof UnknownModelError || cause instanceof ZodError || cause instanceof SecretValidationError ? "BAD_REQUEST"
      : cause instanceof SecretNotFoundError ? "NOT_FOUND"
      : cause instanceof InvalidTransitionError ? "CONFLICT"
      : cause instanceof CatalogError ? (cause.code === "INVALID" ? "BAD_REQUEST" : cause.code)
      : cause instanceof WorkspaceFileError ? FILE_ERROR_CODES[cause.code]
      : cause instanceof HumanRequestError ? HUMAN_REQUEST_CODES[cause.code]
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

function requireRole(role: Role) {
  return t.middleware(({ ctx, next }) => {
    const actor = (ctx as Context).actor!;
    if (!roleAtLeast(actor.role, role)) {
      throw new TRPCError({ code: "FORBIDDEN", message: `This needs the ${role} role; you are ${actor.role}` });
    }
    return next();
  });
}

/** Input nested absurdly deep, or text with a lone surrogate, is a clear 400 before any procedure sees it. */
const wellFormedInput = t.middleware(async ({ getRawInput, next }) => {
  const problem = jsonInputProblem(await getRawInput(), MAX_JSON_DEPTH)?.replace(/^body/, "input");
  if (problem) throw new TRPCError({ code: "BAD_REQUEST", message: `The input cannot be taken: ${problem}` });
  return next();
});

const protectedBase = t.procedure.use(wellFormedInput).use(domainErrors).use(authenticated);

export const viewerProcedure = protectedBase.meta({ minRole: "viewer" }).use(requireRole("viewer"));
export const operatorProcedure = protectedBase.meta({ minRole: "operator" }).use(requireRole("operator"));
export const approverProcedure = protectedBase.meta({ minRole: "approver" }).use(requireRole("approver"));
export const adminProcedure = protectedBase.meta({ minRole: "admin" }).use(requireRole("admin"));
