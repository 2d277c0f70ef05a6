// Attack suite, issue class 12: password guessing. 25 wrong passwords in a
// row are not all checked; while an account or an address must wait, even
// the right password is refused; unknown accounts answer exactly like known
// ones; every failure is in the audit log without the password.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listAudit, recordAudit } from "@/server/audit";
import { LoginThrottle, LoginThrottledError, createUser, logIn, type LoginDeps } from "@/server/identity";
import { createTestDb, type TestDb } from "../helpers/db";

const SCHEDULE = { accountFreeFailures: 5, addressFreeFailures: 20, baseDelayMs: 300, maxDelayMs: 60_000, windowMs: 60_000 };
const PASSWORD = "the-right-password-1";

let t: TestDb;
let deps: LoginDeps;

beforeEach(async () => {
  t = await createTestDb();
  await createUser(t.db, { email: "victim@rein.test", password: PASSWORD, role: "admin" });
  deps = {
    db: t.db,
    throttle: new LoginThrottle(SCHEDULE),
    onFailure: (f) =>
      void recordAudit(t.db, {
        kind: "login.failed",
        channel: "login",
        subject: f.email,
        detail: { address: f.address, reason: f.reason },
      }),
  };
});
afterEach(async () => t.cleanup());

/** Tries a login; "ok", "wrong" or the throttle's message. */
async function attempt(email: string, password: string, address = "203.0.113.7"): Promise<string> {
  try {
    return (await logIn(deps, { email, password, address })) ? "ok" : "wrong";
  } catch (err) {
    if (err instanceof LoginThrottledError) return err.message;
    throw err;
  }
}

describe("guessing a password", () => {
  it("25 wrong passwords in a row: only the first few are checked, then every attempt waits, the right password too", async () => {
    const answers: string[] = [];
    for (let i = 0; i < 25; i++) answers.push(await attempt("victim@rein.test", `guess-${i}`));
    expect(answers.filter((a) => a === "wrong")).toHaveLength(6);
    expect(answers.slice(6).every((a) => /^Too many failed attempts; try again in \d+ seconds$/.test(a))).toBe(true);
    expect(await attempt("victim@rein.test", PASSWORD)).toMatch(/^Too many failed attempts/);

    await new Promise((r) => setTimeout(r, SCHEDULE.baseDelayMs + 50));
    expect(await attempt("victim@rein.test", PASSWORD)).toBe("ok");
    // A success clears the account's count.
    expect(await attempt("victim@rein.test", "one more guess")).toBe("wrong");
  });

  it("an account that does not exist answers exactly like one that does", async () => {
    const known: string[] = [];
    const unknown: string[] = [];
    for (let i = 0; i < 8; i++) {
      known.push(await attempt("victim@rein.test", `guess-${i}`, "198.51.100.1"));
      unknown.push(await attempt("nobody@rein.test", `guess-${i}`, "198.51.100.2"));
    }
    expect(unknown.map((a) => a.replace(/\d+ seconds/, "N seconds"))).toEqual(known.map((a) => a.replace(/\d+ seconds/, "N seconds")));
  });

  it("one address trying many accounts is slowed down too", async () => {
    const answers: string[] = [];
    for (let i = 0; i < 24; i++) answers.push(await attempt(`user${i}@rein.test`, "guess", "192.0.2.9"));
    expect(answers.filter((a) => a === "wrong")).toHaveLength(21);
    expect(answers.slice(21).every((a) => a.startsWith("Too many"))).toBe(true);
    // Another address is not held up by it.
    expect(await attempt("victim@rein.test", PASSWORD, "192.0.2.10")).toBe("ok");
  });

  it("every failed attempt is audited, with the address and never the password", async () => {
    for (let i = 0; i < 7; i++) await attempt("victim@rein.test", `secret-guess-${i}`);
    await new Promise((r) => setTimeout(r, 50));
    const rows = (await listAudit(t.db, { kind: "login.failed" })).entries;
    expect(rows).toHaveLength(7);
    expect(rows.filter((r) => r.detail.reason === "throttled")).toHaveLength(1);
    expect(rows.every((r) => r.subject === "victim@rein.test" && r.detail.address === "203.0.113.7")).toBe(true);
    expect(JSON.stringify(rows)).not.toContain("secret-guess");
  });
});
