// Attack suite: who hears of another team's request when it reaches the
// on-call level. The on-call list names people an admin chose when they were
// admins; the mails and Slack messages carry the request's title and detail
// (what the agent wants to run) and a link. Someone on the list who is no
// longer an admin, or was never one, must not be told of a request of a team
// they are not in; when nobody on the list may see it, every admin is told.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recipientsFor, saveRouting } from "@/server/channels";
import { createUser, ensureTeam, loadActor, setUserRole, type Actor } from "@/server/identity";
import { createTestDb, type TestDb } from "../helpers/db";

let t: TestDb;
let admin: Actor;
let formerAdmin: string;
let alphaApprover: string;
let betaApprover: string;
let beta: string;

const betaRequest = () => ({ id: "req-1", runId: "run-1", teamId: beta, requiredRole: "approver" });
const told = async (level: number) => (await recipientsFor(t.db, betaRequest(), level)).map((r) => r.email).sort();

beforeAll(async () => {
  t = await createTestDb();
  const [alpha, b] = await Promise.all(["alpha", "beta"].map((n) => ensureTeam(t.db, n)));
  beta = b;
  admin = (await loadActor(
    t.db,
    await createUser(t.db, { email: "admin@test.local", password: "test-password-1", role: "admin", teams: [] }),
  ))!;
  formerAdmin = await createUser(t.db, { email: "former@test.local", password: "test-password-1", role: "admin", teams: [] });
  alphaApprover = await createUser(t.db, { email: "alpha-approver@test.local", password: "test-password-1", role: "viewer", teams: [] });
  betaApprover = await createUser(t.db, { email: "beta-approver@test.local", password: "test-password-1", role: "viewer", teams: [] });
  await t.db.teamMember.createMany({
    data: [
      { teamId: alpha, userId: formerAdmin, role: "operator" },
      { teamId: alpha, userId: alphaApprover, role: "approver" },
      { teamId: beta, userId: betaApprover, role: "approver" },
    ],
  });
}, 60_000);

afterAll(async () => t?.cleanup());

describe("the on-call list", () => {
  it("tells nobody of another team's request who may not see it: a demoted admin, another team's approver", async () => {
    await saveRouting(t.db, admin, { level2: {}, onCall: [formerAdmin, alphaApprover] });
    expect(await told(3)).toContain("former@test.local");
    await setUserRole(t.db, { actor: admin, channel: "admin" }, formerAdmin, "viewer");
    const onCall = await told(3);
    expect(onCall).not.toContain("former@test.local");
    expect(onCall).not.toContain("alpha-approver@test.local");
    // Nobody left on the list may see it: every admin is told instead.
    expect(onCall).toEqual(["admin@test.local"]);
  });

  it("still tells the listed people who may see it, and only them", async () => {
    await saveRouting(t.db, admin, { level2: {}, onCall: [betaApprover, alphaApprover] });
    expect(await told(3)).toEqual(["beta-approver@test.local"]);
    expect(await told(1)).toEqual(["admin@test.local", "beta-approver@test.local"]);
  });
});
