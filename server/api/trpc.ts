// tRPC setup: context, error shape, and the access chain
// publicProcedure (links anyone may open) and, for everything else,
// authentication -> role procedures.
import { initTRPC, TRPCError } from "@trpc/server";
import { MAX_JSON_DEPTH, jsonInputProblem } from "@/server/channels";
import superjson from "superjson";
import { DomainError, toDomainError, trpcErrorOf } from "@/server/errors";
import { gateRefusal, type Actor, type LinkThrottle, type Role } from "@/server/identity";
import type { Services } from "@/server/app";

/** What every procedure gets: Rein's services (docs/architecture.md#composition-root), the caller, and the request's own facts. */
export type Context = Services & {
  actor: Actor | null;
  /** Where invitation and reset links point: REIN_PUBLIC_URL, else the request's own origin. */
  linkBase: string;
  /** The client's address as the socket saw it (throttling bad links); null when unknown. */
  clientAddress: string | null;
  /** Slows down guessing at invitation and reset links. */
  linkThrottle: LinkThrottle;
};

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
