// IdentityProvider (I8): users, teams, roles, API tokens (docs/people-and-teams.md).
export { ROLES, isRole, roleAtLeast, roleIn, roleAcross, higherRole, highestRole, gateRefusal, actorInTeam, type Role } from "./roles";
export type { Actor } from "./types";
export { hashPassword, verifyPassword, generatePassword } from "./passwords";
export {
  loadActor,
  type LoadActorOptions,
  verifyCredentials,
  createUser,
  ensureTeam,
  bootstrapAdmin,
  DEFAULT_TEAM,
  type BootstrapResult,
} from "./users";
export { createApiToken, listApiTokens, revokeApiToken, authenticateToken, bearerFrom, hashToken, type CreatedToken } from "./tokens";
export { authenticateRequest, sessionVersionOf } from "./request";
export {
  NO_FRAMING,
  forgeryRefusal,
  requestOrigin,
  isOwnOrigin,
  isStateChanging,
  nonJsonBody,
  sameOriginOrNone,
  usesBearer,
} from "./origin";
export { LoginThrottle, LoginThrottledError, DEFAULT_SCHEDULE, scheduleFromEnv, type ThrottleSchedule } from "./login-throttle";
export { logIn, type LoginAttempt, type LoginDeps } from "./login";
export { PeopleError, type PeopleErrorCode } from "./errors";
export { onSessionsEnded, sessionsEnded, onRolesChanged, rolesChanged } from "./sessions";
export {
  addUser,
  listUsers,
  setUserRole,
  renameUser,
  disableUser,
  enableUser,
  MIN_PASSWORD_LENGTH,
  type Acting,
  type NewUser,
  type UserView,
} from "./people";
export {
  listTeams,
  getTeam,
  createTeam,
  renameTeam,
  setTeamArchived,
  addTeamMember,
  setTeamMemberRole,
  removeTeamMember,
  teamsOf,
  describeActor,
  checkTeamName,
  type TeamListItem,
} from "./teams";
export { ANY_TEAM, resolveTeamRefs, teamNamesById, teamRefsProblem, type ResolvedTeamRefs } from "./team-refs";
export {
  createInvitation,
  createResetLink,
  listInvitations,
  revokeInvitation,
  inspectLink,
  acceptLink,
  LinkThrottle,
  INVITE_LIFETIME_MS,
  RESET_LIFETIME_MS,
  type CreatedLink,
  type InvitationView,
  type InvitationState,
  type LinkKind,
  type LinkView,
  type NewInvitation,
} from "./invitations";
export {
  CreateUserInput,
  CreateInvitationInput,
  AcceptLinkInput,
  LinkToken,
  ById,
  SetRoleInput,
  UpdateUserInput,
  CreateTeamInput,
  RenameTeamInput,
  UpdateTeamInput,
  AddMemberInput,
  MemberRoleInput,
  MemberInput,
} from "./inputs";
