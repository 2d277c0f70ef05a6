// What the people and team procedures and routes take (tRPC and REST v1
// share them). Messages name no field: the path does.
import { z } from "zod";
import { ROLES } from "./roles";

export const MIN_PASSWORD = 8;

const Email = z.email("a valid email is required");
const PersonName = z.string().trim().min(1, "must not be empty").max(100, "has at most 100 characters");
const Password = z
  .string()
  .min(MIN_PASSWORD, `the password needs at least ${MIN_PASSWORD} characters`)
  .max(200, "has at most 200 characters");
const RoleName = z.enum(ROLES, { error: `must be one of ${ROLES.join(", ")}` });
const Id = z.string().min(1, "is required").max(200);
export const TeamNameInput = z.string().trim().min(1, "a team needs a name").max(64, "a team name has at most 64 characters");

export const CreateUserInput = z.object({
  email: Email,
  name: PersonName.optional(),
  password: Password,
  role: RoleName,
  teamId: Id.optional(),
  teamRole: RoleName.optional(),
});
export const CreateInvitationInput = z.object({
  email: Email,
  name: PersonName.optional(),
  role: RoleName,
  teamId: Id.optional(),
  teamRole: RoleName.optional(),
});
export const LinkToken = z.string().min(1, "the link has no token").max(200, "the link's token is too long");
export const AcceptLinkInput = z.object({ token: LinkToken, name: PersonName.optional(), password: Password });
export const ById = z.object({ id: Id });
export const SetRoleInput = z.object({ id: Id, role: RoleName });
export const UpdateUserInput = z.strictObject({ role: RoleName.optional(), name: PersonName.optional() });
export const CreateTeamInput = z.object({ name: TeamNameInput });
export const RenameTeamInput = z.object({ id: Id, name: TeamNameInput });
export const UpdateTeamInput = z.strictObject({
  name: TeamNameInput.optional(),
  archived: z.boolean({ error: "must be true or false" }).optional(),
});
export const AddMemberInput = z.object({ teamId: Id, email: Email, role: RoleName });
export const MemberRoleInput = z.object({ teamId: Id, userId: Id, role: RoleName });
export const MemberInput = z.object({ teamId: Id, userId: Id });
