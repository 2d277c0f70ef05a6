import type { Role } from "./roles";

/** Who is calling: a person through a session, or a program through an API token. */
export interface Actor {
  userId: string;
  email: string;
  name: string;
  /** The person's own role: the least they have in every team; admin is admin everywhere. */
  role: Role;
  via: "session" | "token" | "cli";
  teamIds: string[];
  /**
   * The effective role in each team the person belongs to (the higher of
   * `role` and the membership's role); see roleIn().
   */
  teamRoles?: Record<string, Role>;
  /** User.sessionVersion when the actor was loaded: what a new session cookie carries. */
  sessionVersion?: number;
}
