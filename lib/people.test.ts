import { describe, expect, it } from "vitest";
import {
  describeTeamRoles,
  effectiveRoleHint,
  linkRefusalTitle,
  looksLikeEmail,
  matchesPerson,
  passwordProblems,
  personName,
  removesAdmin,
  teamNameProblem,
} from "./people";

describe("describeTeamRoles", () => {
  it("names each team with the role in it, leaving out archived teams", () => {
    expect(
      describeTeamRoles([
        { name: "payments", role: "approver", archived: false },
        { name: "old", role: "operator", archived: true },
        { name: "research", role: "viewer", archived: false },
      ]),
    ).toBe("approver in payments · viewer in research");
    expect(describeTeamRoles([])).toBe("");
  });
});

describe("effectiveRoleHint", () => {
  it("explains an own role above the team role", () => {
    expect(effectiveRoleHint({ role: "viewer", ownRole: "admin" })).toBe("admin everywhere");
    expect(effectiveRoleHint({ role: "viewer", ownRole: "approver" })).toBe("approver everywhere (their own role)");
  });
  it("says nothing when the team role is as high or higher", () => {
    expect(effectiveRoleHint({ role: "operator", ownRole: "operator" })).toBeNull();
    expect(effectiveRoleHint({ role: "approver", ownRole: "viewer" })).toBeNull();
  });
});

describe("removesAdmin", () => {
  it("is true only when admin is taken away", () => {
    expect(removesAdmin("admin", "viewer")).toBe(true);
    expect(removesAdmin("admin", "admin")).toBe(false);
    expect(removesAdmin("operator", "viewer")).toBe(false);
    expect(removesAdmin("viewer", "admin")).toBe(false);
  });
});

describe("passwordProblems", () => {
  it("asks for a password and its repetition", () => {
    expect(passwordProblems({ password: "", confirm: "" })).toEqual({ password: "Choose a password" });
    expect(passwordProblems({ password: "long enough", confirm: "" })).toEqual({ confirm: "Type the password again" });
  });
  it("refuses short passwords and different repetitions, per field", () => {
    expect(passwordProblems({ password: "short", confirm: "short" })).toEqual({ password: "At least 8 characters (this one has 5)" });
    expect(passwordProblems({ password: "long enough", confirm: "long enougH" })).toEqual({ confirm: "The two passwords differ" });
    expect(passwordProblems({ password: "1234567", confirm: "x" })).toEqual({
      password: "At least 8 characters (this one has 7)",
      confirm: "The two passwords differ",
    });
  });
  it("accepts 8 characters repeated exactly", () => {
    expect(passwordProblems({ password: "12345678", confirm: "12345678" })).toEqual({});
  });
});

describe("looksLikeEmail", () => {
  it.each([
    ["ana@example.org", true],
    ["  ana@example.org ", true],
    ["ana@example", false],
    ["ana example.org", false],
    ["", false],
  ])("%s -> %s", (text, ok) => expect(looksLikeEmail(text)).toBe(ok));
});

describe("matchesPerson", () => {
  const ana = { name: "Ana Lima", email: "ana@example.org", role: "operator" as const, teams: [{ name: "payments" }] };
  it("matches name, e-mail, role and team names, every word", () => {
    expect(matchesPerson(ana, "")).toBe(true);
    expect(matchesPerson(ana, "lima")).toBe(true);
    expect(matchesPerson(ana, "EXAMPLE.org")).toBe(true);
    expect(matchesPerson(ana, "operator payments")).toBe(true);
    expect(matchesPerson(ana, "operator research")).toBe(false);
    expect(matchesPerson({ ...ana, name: null }, "ana")).toBe(true);
  });
});

describe("linkRefusalTitle", () => {
  it("says which dead end from the server's words, then its code", () => {
    expect(linkRefusalTitle("CONFLICT", "This link has already been used; each link works once")).toBe("This link has already been used");
    expect(linkRefusalTitle("BAD_REQUEST", "This link has expired; ask an admin for a new one")).toBe("This link has expired");
    expect(linkRefusalTitle("CONFLICT", "This link was withdrawn (revoked or replaced by a newer one); ask an admin for a new one")).toBe(
      "This link was withdrawn",
    );
    expect(linkRefusalTitle("TOO_MANY_REQUESTS", "Too many invalid links from your address; try again in 30 seconds")).toBe(
      "Too many attempts",
    );
    expect(linkRefusalTitle("CONFLICT", "No")).toBe("This link cannot be used any more");
    expect(linkRefusalTitle("NOT_FOUND", "Unknown link")).toBe("This link is not valid");
    expect(linkRefusalTitle(undefined, "bad signature")).toBe("This link is not valid");
  });
});

describe("teamNameProblem", () => {
  it("follows the server's rule", () => {
    expect(teamNameProblem("payments")).toBeNull();
    expect(teamNameProblem("Team A-1_b.c")).toBeNull();
    expect(teamNameProblem("  ")).toBe("A name is required");
    expect(teamNameProblem("x".repeat(65))).toBe("At most 64 characters (this one has 65)");
    expect(teamNameProblem("pay/ments")).toBe("Letters, digits, spaces and - _ . only");
  });
});

describe("personName", () => {
  it("is the name when there is one, else the e-mail", () => {
    expect(personName({ name: "Ann Lee", email: "ann@x.test" })).toBe("Ann Lee");
    expect(personName({ name: "  ", email: "ann@x.test" })).toBe("ann@x.test");
    expect(personName({ name: null, email: "ann@x.test" })).toBe("ann@x.test");
  });
});
