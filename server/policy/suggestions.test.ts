// Suggested rules on a real SQLite database: proposed only from repeated, unrejected, unedited
// approvals of one command line in one team; as narrow as that; added as a normal, audited
// policy version; dismissed with a reason.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listAudit } from "@/server/audit";
import { createUser } from "@/server/identity";
import { createTestDb, type TestDb } from "@/test/helpers/db";
import { decidedShellQuestion, type DecidedShellOptions } from "@/test/helpers/human-requests";
import { acceptSuggestion, activePolicy, decideCall, dismissSuggestion, ruleSuggestions, MIN_APPROVALS, type PolicyInput } from "./index";
import { compileStored } from "./gate";

let t: TestDb;
let admin: { id: string; name: string };
let approver: string;
let payments: string;
let growth: string;

beforeEach(async () => {
  t = await createTestDb();
  const id = await createUser(t.db, { email: "admin@test.local", name: "Ada Admin", password: "test-password-1", role: "admin" });
  admin = { id, name: "Ada Admin" };
  approver = await createUser(t.db, { email: "ann@test.local", name: "Ann Approver", password: "test-password-1", role: "approver" });
  payments = (await t.db.team.create({ data: { name: "payments" } })).id;
  growth = (await t.db.team.create({ data: { name: "growth" } })).id;
});
afterEach(async () => {
  await t.cleanup();
});

const asked = (teamId: string, command: string, opts: DecidedShellOptions = {}) =>
  decidedShellQuestion(t.db, { teamId, command, launcherId: admin.id, approverId: approver, ...opts });

const times = async (n: number, teamId: string, command: string) => {
  for (let i = 0; i < n; i++) await asked(teamId, command);
};

async function decide(teamId: string, command: string) {
  const active = await activePolicy(t.db);
  const input: PolicyInput = { actor: { id: admin.id }, team: null, teamId, tool: "shell", args: { command }, tier: "T1" };
  return decideCall(compileStored(active.version, active.source, active.teams), input);
}

describe("suggested rules", () => {
  it("offers a rule once one command has been approved enough times in one team, with its evidence", async () => {
    await times(MIN_APPROVALS - 1, payments, "git push origin main");
    expect(await ruleSuggestions(t.db)).toEqual([]);
    await asked(payments, "git push origin main");
    const [s, ...rest] = await ruleSuggestions(t.db);
    expect(rest).toEqual([]);
    expect(s).toMatchObject({
      team: { id: payments, name: "payments" },
      tool: "shell",
      command: "git push origin main",
      approvals: MIN_APPROVALS,
      approvers: 1,
      agents: ["demo-deploy"],
      now: { effect: "ask" },
      withRule: { effect: "allow" },
      otherQuestions: 0,
    });
    expect(s.tiers).toEqual(["T1"]);
    expect(s.recent[0]).toMatchObject({ decidedBy: { id: approver, name: "Ann Approver" }, agentName: "demo-deploy" });
    expect(s.yaml).toContain("team:");
    expect(s.yaml).toContain("payments");
    expect(s.yaml).toContain("decision: allow");
    expect(s.yaml).toContain("command_line");
  });

  it("offers nothing for a command someone rejected, an edited approval, an answer no person gave, or another team's approvals", async () => {
    await times(MIN_APPROVALS, payments, "git push origin main");
    await asked(payments, "git push origin main", { state: "REJECTED" });
    await times(MIN_APPROVALS - 1, payments, "git push origin release");
    await asked(payments, "git push origin release", { edited: true });
    await asked(payments, "git push origin release", { by: null });
    await times(MIN_APPROVALS - 1, growth, "git push origin release");
    expect(await ruleSuggestions(t.db)).toEqual([]);
  });

  it("counts no approval by the run's own launcher, and no question whose tier was not recorded", async () => {
    await times(MIN_APPROVALS - 1, payments, "git push origin main");
    await asked(payments, "git push origin main", { by: admin.id }); // the launcher approving their own run
    await asked(payments, "git push origin main", { tier: null });
    expect(await ruleSuggestions(t.db)).toEqual([]);
    await asked(payments, "git push origin main");
    expect((await ruleSuggestions(t.db))[0]).toMatchObject({ approvals: MIN_APPROVALS, tiers: ["T1"] });
  });

  it("offers nothing for a line known only when it runs, or in a team whose name is a glob; a line of several commands, as a whole", async () => {
    await times(MIN_APPROVALS, payments, "git push origin $(git branch --show-current)");
    const globbed = (await t.db.team.create({ data: { name: "eng-*" } })).id;
    await times(MIN_APPROVALS, globbed, "git push origin main");
    expect(await ruleSuggestions(t.db)).toEqual([]);
    await times(MIN_APPROVALS, payments, "npm test && git push origin main");
    const [s] = await ruleSuggestions(t.db);
    await acceptSuggestion(t.db, admin, s.id);
    expect((await decide(payments, "npm test && git push origin main")).effect).toBe("allow");
    expect((await decide(payments, "git push origin main")).effect).toBe("ask");
    expect((await decide(payments, "npm test; git push origin main")).effect).toBe("ask");
  });

  it("added, it is a new audited policy version that allows that command in that team only, and is offered no more", async () => {
    await times(MIN_APPROVALS, payments, "./deploy.sh staging");
    const [s] = await ruleSuggestions(t.db);
    expect(s.command).toBe("./deploy.sh staging");
    const before = (await activePolicy(t.db)).version;
    const saved = await acceptSuggestion(t.db, admin, s.id);
    expect(saved.version).toBe(before + 1);
    expect(saved.comment).toContain("./deploy.sh staging");
    expect((await decide(payments, "./deploy.sh staging")).effect).toBe("allow");
    // Nothing wider: another team, another argument, the production deploy, a push, all still ask.
    expect((await decide(growth, "./deploy.sh staging")).effect).toBe("ask");
    expect((await decide(payments, "./deploy.sh production")).effect).toBe("ask");
    expect((await decide(payments, "./deploy.sh staging && git push")).effect).toBe("ask");
    expect(await ruleSuggestions(t.db)).toEqual([]);
    const kinds = (await listAudit(t.db, {})).entries.map((e) => e.kind);
    expect(kinds).toContain("policy.updated");
    expect(kinds).toContain("policy.suggestion_accepted");
    // Added once: the same id is not offered again.
    await expect(acceptSuggestion(t.db, admin, s.id)).rejects.toThrow(/no longer offered/);
  });

  it("dismissed with a reason, it is offered no more and the audit log says why", async () => {
    await times(MIN_APPROVALS, payments, "git push origin main");
    const [s] = await ruleSuggestions(t.db);
    await dismissSuggestion(t.db, admin, s.id, "pushes stay with a person");
    expect(await ruleSuggestions(t.db)).toEqual([]);
    const row = (await listAudit(t.db, { kind: "policy.suggestion_dismissed" })).entries[0];
    expect(row).toMatchObject({ subject: "git push origin main", teamId: payments, detail: { reason: "pushes stay with a person" } });
    await expect(acceptSuggestion(t.db, admin, s.id)).rejects.toThrow(/no longer offered/);
  });
});
