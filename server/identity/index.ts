// IdentityProvider (I8): users, teams, roles, API tokens (SPEC section 5).
export { ROLES, isRole, roleAtLeast, roleIn, higherRole, highestRole, gateRefusal, actorInTeam, type Role } from "./roles";
export type { Actor } from "./types";
export { hashPassword, verifyPassword, generatePassword } from "./passwords";
export {
  loadActor,
  verifyCredentials,
  createUser,
  ensureTeam,
  bootstrapAdmin,
  DEFAULT_TEAM,
  type BootstrapResult,
} from "./users";
export {
  createApiToken,
  listApiTokens,
  revokeApiToken,
  authenticateToken,
  bearerFrom,
  hashToken,
  type CreatedToken,
} from "./tokens";
export { authenticateRequest } from "./request";
export { forgeryRefusal, isOwnOrigin, isStateChanging, nonJsonBody, sameOriginOrNone, usesBearer } from "./origin";
export { LoginThrottle, LoginThrottledError, DEFAULT_SCHEDULE, scheduleFromEnv, type ThrottleSchedule } from "./login-throttle";
export { logIn, type LoginAttempt, type LoginDeps } from "./login";
