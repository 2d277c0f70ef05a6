// Audit rows written over the direct SQLite connection read back exactly as
// rows written through Prisma: same fields, same times, same filters.
import { afterEach, beforeEach, expect, it } from "vitest";
import { openNativeSqlite, type NativeSqlite } from "@/server/db";
import { createSqliteTestDb, type TestDb } from "@/test/helpers/db";
import { listAudit } from "./log";
import { auditWriter } from "./writer";

let t: TestDb;
let native: NativeSqlite;

beforeEach(async () => {
  t = await createSqliteTestDb();
  native = openNativeSqlite(t.url);
});
afterEach(async () => {
  native.close();
  await t.cleanup();
});

const entry = (at: Date, subject: string) => ({
  at,
  kind: "policy.decision",
  actorId: "agent:demo-coder",
  actorName: "demo-coder",
  onBehalfOf: "user-1",
  channel: "kernel",
  runId: "run-1",
  subject,
  toState: "allow",
  detail: { level: "tool", rule: 2, reason: "built-in workspace tools", version: 1, nodeId: `1:${subject}` },
});

it("a row from either path reads the same, in the order written, and filters by time alike", async () => {
  const viaPrisma = auditWriter(t.db);
  const direct = auditWriter(t.db, native);
  await viaPrisma.record(entry(new Date("2026-11-27T10:00:00.123Z"), "a"));
  await direct.record(entry(new Date("2026-11-27T10:00:01.456Z"), "b"));
  await viaPrisma.record(entry(new Date("2026-11-27T10:00:02.789Z"), "c"));
  await direct.record({ kind: "request.transition", runId: "run-2" });

  const { entries } = await listAudit(t.db, { kind: "policy.decision" });
  expect(entries.map((e) => e.subject)).toEqual(["c", "b", "a"]);
  const [c, b, a] = entries;
  const same = ({ id: _id, at: _at, subject: _s, detail, ...rest }: (typeof entries)[number]) => ({
    ...rest,
    detail: { ...detail, nodeId: undefined },
  });
  expect(same(b)).toEqual(same(a));
  expect(same(b)).toEqual(same(c));
  expect(b.at).toEqual(new Date("2026-11-27T10:00:01.456Z"));
  expect(b.detail).toEqual({ level: "tool", rule: 2, reason: "built-in workspace tools", version: 1, nodeId: "1:b" });

  const window = await listAudit(t.db, { from: new Date("2026-11-27T10:00:01Z"), to: new Date("2026-11-27T10:00:02Z") });
  expect(window.entries.map((e) => e.subject)).toEqual(["b"]);
  const bare = (await listAudit(t.db, { runId: "run-2" })).entries[0];
  expect(bare).toMatchObject({ kind: "request.transition", actorId: null, subject: null, detail: {} });
  expect(Math.abs(bare.at.getTime() - Date.now())).toBeLessThan(60_000);
});

it("refuses a row without a kind, on either path", async () => {
  await expect(auditWriter(t.db, native).record({ kind: " " })).rejects.toThrow(/needs a kind/);
  await expect(auditWriter(t.db).record({ kind: "" })).rejects.toThrow(/needs a kind/);
});

it("a row about a run gets the run's team on either path unless one is given; the team filter finds them", async () => {
  const team = await t.db.team.create({ data: { name: "payments" } });
  const other = await t.db.team.create({ data: { name: "growth" } });
  const user = await t.db.user.create({ data: { email: "ann@example.com", name: "Ann", passwordHash: "-" } });
  const run = await t.db.run.create({
    data: {
      goal: "g",
      agentName: "demo-coder",
      agentVersion: 1,
      model: "scripted/demo",
      status: "running",
      teamId: team.id,
      createdById: user.id,
    },
  });
  const viaPrisma = auditWriter(t.db);
  const direct = auditWriter(t.db, native);
  await viaPrisma.record({ kind: "policy.decision", runId: run.id, subject: "prisma" });
  await direct.record({ kind: "policy.decision", runId: run.id, subject: "direct" }, { routine: true });
  await direct.record({ kind: "team.renamed", teamId: other.id, subject: "given" });
  await direct.record({ kind: "policy.decision", runId: run.id, teamId: null, subject: "none given" });
  await viaPrisma.record({ kind: "settings.updated", subject: "no team" });
  await new Promise((r) => setTimeout(r, 50)); // the routine row rides the next write or goes within 20 ms

  const bySubject = Object.fromEntries((await listAudit(t.db, {})).entries.map((e) => [e.subject, e.teamId]));
  expect(bySubject).toEqual({ prisma: team.id, direct: team.id, given: other.id, "none given": null, "no team": null });
  const page = await listAudit(t.db, { teamId: team.id });
  expect(page.entries.map((e) => e.subject).sort()).toEqual(["direct", "prisma"]);
  expect(page.teams).toEqual({ [team.id]: "payments" });
  expect((await listAudit(t.db, { teamId: other.id })).entries.map((e) => e.subject)).toEqual(["given"]);
});
