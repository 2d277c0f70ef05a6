// People and teams as the pages show them (Settings › People and Teams, the
// invitation and reset pages, the user menu). Pure functions; the server
// checks everything again.
import type { Role } from "@/server/identity";

const RANK: Record<Role, number> = { viewer: 0, operator: 1, approver: 2, admin: 3 };

export const MIN_PASSWORD = 8;

/** "approver in payments · viewer in research"; archived teams are left out. */
export function describeTeamRoles(teams: ReadonlyArray<{ name: string; role: Role; archived?: boolean }>): string {
  return teams
    .filter((t) => !t.archived)
    .map((t) => `${t.role} in ${t.name}`)
    .join(" · ");
}

/**
 * Why a member's effective role is above their role in the team, or null when
 * it is not: their own role is the least they have everywhere.
 */
export function effectiveRoleHint(member: { role: Role; ownRole: Role }): string | null {
  if (RANK[member.ownRole] <= RANK[member.role]) return null;
  return member.ownRole === "admin" ? "admin everywhere" : `${member.ownRole} everywhere (their own role)`;
}

/** A role change that takes admin away from someone: asked for confirmation first. */
export function removesAdmin(from: Role, to: Role): boolean {
  return from === "admin" && to !== "admin";
}

export interface PasswordDraft {
  password: string;
  confirm: string;
}

/** The checks the forms make before sending, one message per field. */
export function passwordProblems({ password, confirm }: PasswordDraft): Partial<Record<keyof PasswordDraft, string>> {
  const out: Partial<Record<keyof PasswordDraft, string>> = {};
  if (!password) out.password = "Choose a password";
  else if (password.length < MIN_PASSWORD) out.password = `At least ${MIN_PASSWORD} characters (this one has ${password.length})`;
  if (password && !confirm) out.confirm = "Type the password again";
  else if (password && confirm !== password) out.confirm = "The two passwords differ";
  return out;
}

/** A plausible e-mail address, checked before sending (the server decides). */
export function looksLikeEmail(text: string): boolean {
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text.trim());
}

/** Whether a person matches what was typed in the search box: name, e-mail, role or a team's name. */
export function matchesPerson(
  person: { name: string | null; email: string; role: Role; teams: ReadonlyArray<{ name: string }> },
  query: string,
): boolean {
  const q = query.trim().toLowerCase();
  if (!q) return true;
  const haystack = [person.name ?? "", person.email, person.role, ...person.teams.map((t) => t.name)].join("\n").toLowerCase();
  return q.split(/\s+/).every((word) => haystack.includes(word));
}

/**
 * The title of the page an unusable invitation or reset link gets. The
 * server's own words follow it; the title only says which kind of dead end.
 */
export function linkRefusalTitle(code: string | undefined, message: string): string {
  if (/\bused\b/i.test(message)) return "This link has already been used";
  if (/expired/i.test(message)) return "This link has expired";
  if (/revoked|withdrawn/i.test(message)) return "This link was withdrawn";
  if (code === "TOO_MANY_REQUESTS") return "Too many attempts";
  if (code === "CONFLICT") return "This link cannot be used any more";
  return "This link is not valid";
}

/** Team names as the server accepts them (1–64 letters, digits, spaces, - _ .). */
export function teamNameProblem(name: string): string | null {
  const n = name.trim();
  if (!n) return "A name is required";
  if (n.length > 64) return `At most 64 characters (this one has ${n.length})`;
  if (!/^[\p{L}\p{N} _.-]+$/u.test(n)) return "Letters, digits, spaces and - _ . only";
  return null;
}

/** How a person is named on a page: their name, else their e-mail (which the page also gives on hover). */
export function personName(person: { name?: string | null; email: string }): string {
  return person.name?.trim() || person.email;
}
