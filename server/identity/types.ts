import type { Role } from "./roles";

/** Who is calling: a person through a session, or a program through an API token. */
export interface Actor {
  userId: string;
  email: string;
  name: string;
  role: Role;
  via: "session" | "token" | "cli";
  teamIds: string[];
}
