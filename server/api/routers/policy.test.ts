// policy.* and audit.* through createCaller on a real SQLite database:
// admins only, validation errors as BAD_REQUEST with their lines, versions,
// previews, the audit row of a save, and the audit log's pages and exports.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordAudit } from "@/server/audit";
import { createUser, loadActor, type Actor } from "@/server/identity";
import { DEFAULT_POLICY } from "@/server/policy";
import { createTestDb, type TestDb } from "@/test/helpers/db";
import { callerFor } from "@/test/helpers/services";
import { trpcError } from "@/test/helpers/trpc";

let t: TestDb;
let admin: Actor;
let approver: Actor;
let alice: Actor;

/** How often a save told the gate in force to reload. */
let invalidated = 0;

// These routers never use the kernel.
const caller = (actor: Actor | null) => callerFor(t, actor, { policy: { invalidate: () => void invalidated++ } });

beforeAll(async () => {
  t = await createTestDb();
  admin = (await loadActor(
    t.db,
    await createUser(t.db, { email: "admin@test.local", name: "Ada Admin", password: "test-password-1", role: "admin" }),
  ))!;
  approver = (await loadActor(
    t.db,
    await createUser(t.db, { email: "approver@test.local", password: "test-password-1", role: "approver" }),
  ))!;
  alice = (await loadActor(t.db, await createUser(t.db, { email: "alice@example.com", password: "test-password-1", role: "operator" })))!;
});
afterAll(async () => {
  await t?.cleanup();
});

describe("policy", () => {
  it("is for admins only: an approver is FORBIDDEN and anonymous UNAUTHORIZED", async () => {
    expect((await trpcError(caller(approver).policy.active())).code).toBe("FORBIDDEN");
    expect((await trpcError(caller(approver).policy.save({ source: "rules: []\n" }))).code).toBe("FORBIDDEN");
    expect((await trpcError(caller(null).policy.versions())).code).toBe("UNAUTHORIZED");
    expect((await trpcError(caller(approver).audit.list({}))).code).toBe("FORBIDDEN");
    expect(await t.db.policyDocument.count()).toBe(0);
  });

  it("active starts with the default policy as version 1", async () => {
    const active = await caller(admin).policy.active();
    expect(active).toMatchObject({ version: 1, source: DEFAULT_POLICY, createdBy: null });
  });

  it("validate returns the errors with their lines, or ok", async () => {
    const bad = await caller(admin).policy.validate({
      source: "rules:\n  - tool: shell\n    decision: permit\n  - tool: x\n    args: { a: { pattern: '[' } }\n    decision: ask\n",
    });
    expect(bad.ok).toBe(false);
    expect(bad.errors.map((e) => e.line)).toEqual([3, 5]);
    expect(bad.errors[0].message).toContain("must be allow, deny or ask");
    expect(bad.errors[1].message).toContain("not a valid regular expression");
    expect(await caller(admin).policy.validate({ source: DEFAULT_POLICY })).toEqual({ ok: true, errors: [], warnings: [], ruleCount: 11 });
    // A valid policy with a rule that can never match: saved as it is, with a warning on the rule's line.
    const shadowed = await caller(admin).policy.validate({
      source: "rules:\n  - { tool: shell, decision: allow }\n  - { tool: shell, args: { command: { prefix: rm } }, decision: deny }\n",
    });
    expect(shadowed).toMatchObject({ ok: true, ruleCount: 2, warnings: [{ line: 3 }] });
    expect(shadowed.warnings[0].message).toContain("rule 2 can never match: rule 1 matches every call it matches");
  });

  it("preview evaluates a draft for a sample call, matching a known user by id too", async () => {
    const draft = `rules:
  - { actor: ${alice.userId}, tool: shell, decision: allow }
  - { team: payments, tool: shell, decision: deny }
  - { tool: shell, args: { command: { pattern: 'git\\s+push' } }, decision: ask }
  - { tier: T3, decision: ask, ask: { kind: veto, role: admin, ttl: 10m } }
`;
    const preview = (sample: Record<string, unknown>) =>
      caller(admin).policy.preview({ source: draft, sample: { tool: "shell", args: {}, tier: "T1", ...sample } as never });
    expect(await preview({ args: { command: "git push origin" } })).toMatchObject({
      effect: "ask",
      level: "tool",
      rule: 2,
      policyVersion: 0,
    });
    expect(await preview({ actorEmail: "ALICE@example.com", args: { command: "git push" } })).toMatchObject({
      effect: "allow",
      level: "actor",
    });
    expect(await preview({ team: "payments", args: { command: "git push" } })).toMatchObject({ effect: "deny", level: "team" });
    expect(await preview({ tool: "write_file", tier: "T3" })).toMatchObject({
      effect: "ask",
      level: "environment",
      ask: { kind: "veto", role: "admin", ttlSec: 600 },
    });
    expect(await preview({ tool: "write_file" })).toMatchObject({
      effect: "deny",
      level: "default",
      reason: "no rule matched: default deny",
    });
  });

  it("preview of an invalid draft is BAD_REQUEST naming the line; a missing tool names the field", async () => {
    const err = await trpcError(
      caller(admin).policy.preview({
        source: "rules:\n  - { tool: shell, decision: perhaps }\n",
        sample: { tool: "shell", args: {}, tier: "T1" },
      }),
    );
    expect(err.code).toBe("BAD_REQUEST");
    expect(err.message).toContain("line 2: rule 1, decision");
    const noTool = await trpcError(caller(admin).policy.preview({ source: "rules: []\n", sample: { tool: " ", args: {}, tier: "T1" } }));
    expect(noTool.code).toBe("BAD_REQUEST");
    expect(noTool.message).toContain("tool");
  });

  it("save stores the next version, tells the gate in force and writes the audit row; versions and get show it", async () => {
    const before = await caller(admin).policy.active();
    const told = invalidated;
    const saved = await caller(admin).policy.save({
      source: "rules:\n  - { tool: shell, decision: allow }\n",
      comment: "shell only",
      baseVersion: before.version,
    });
    expect(invalidated).toBe(told + 1);
    expect(saved).toMatchObject({ version: before.version + 1, comment: "shell only", createdBy: { id: admin.userId, name: "Ada Admin" } });
    expect((await caller(admin).policy.active()).version).toBe(saved.version);
    const versions = await caller(admin).policy.versions();
    expect(versions[0]).toMatchObject({ version: saved.version, comment: "shell only", createdBy: { name: "Ada Admin" } });
    expect((await caller(admin).policy.get({ version: before.version })).source).toBe(before.source);

    const audit = await caller(admin).audit.list({ kind: "policy.updated" });
    expect(audit.entries[0]).toMatchObject({
      actorId: admin.userId,
      actorName: "Ada Admin",
      channel: "admin",
      subject: `v${saved.version}`,
      detail: { comment: "shell only" },
    });
  });

  it("save refuses an invalid policy with BAD_REQUEST and the errors, storing nothing", async () => {
    const count = await t.db.policyDocument.count();
    const audits = await t.db.auditEntry.count();
    const err = await trpcError(caller(admin).policy.save({ source: "rules:\n  - tool: shell\n    decison: allow\n", comment: "typo" }));
    expect(err.code).toBe("BAD_REQUEST");
    expect(err.message).toContain('line 3: rule 1: unknown key "decison" (did you mean "decision"?)');
    expect(await t.db.policyDocument.count()).toBe(count);
    expect(await t.db.auditEntry.count()).toBe(audits);
  });

  it("save from a stale version is CONFLICT, storing nothing", async () => {
    const active = await caller(admin).policy.active();
    const err = await trpcError(caller(admin).policy.save({ source: "rules: []\n", comment: "late", baseVersion: active.version - 1 }));
    expect(err.code).toBe("CONFLICT");
    expect(err.message).toContain(`Version ${active.version} was saved`);
    expect((await caller(admin).policy.active()).version).toBe(active.version);
  });

  it("get of an unknown version is NOT_FOUND; a bad version BAD_REQUEST", async () => {
    expect((await trpcError(caller(admin).policy.get({ version: 999 }))).code).toBe("NOT_FOUND");
    expect((await trpcError(caller(admin).policy.get({ version: 0 }))).code).toBe("BAD_REQUEST");
  });
});

describe("audit", () => {
  it("list pages newest first and filters; export returns a named CSV or JSON file", async () => {
    for (let i = 0; i < 5; i++)
      await recordAudit(t.db, { kind: "test.row", channel: "kernel", runId: "run-x", subject: `row ${i}`, detail: { i } });
    const c = caller(admin);
    const first = await c.audit.list({ kind: "test.row", limit: 2 });
    expect(first.entries.map((e) => e.subject)).toEqual(["row 4", "row 3"]);
    const second = await c.audit.list({ kind: "test.row", limit: 2, cursor: first.nextCursor! });
    expect(second.entries.map((e) => e.subject)).toEqual(["row 2", "row 1"]);
    expect((await c.audit.list({ q: "row 0" })).entries.map((e) => e.subject)).toEqual(["row 0"]);
    expect((await c.audit.list({ runId: "run-x", from: new Date(Date.now() + 60_000) })).entries).toEqual([]);
    // What useInfiniteQuery sends along.
    expect((await c.audit.list({ kind: "test.row", limit: 2, direction: "forward" })).entries).toHaveLength(2);

    const csv = await c.audit.export({ filter: { kind: "test.row" }, format: "csv" });
    expect(csv.filename).toMatch(/^rein-audit-\d{8}-\d{6}\.csv$/);
    expect(csv.mimeType).toBe("text/csv");
    expect(csv.content.trim().split("\r\n")).toHaveLength(6);
    const json = await c.audit.export({ filter: { channel: "kernel" }, format: "json" });
    expect(JSON.parse(json.content)).toHaveLength(5);
  });

  it("refuses a bad filter or format with BAD_REQUEST", async () => {
    expect((await trpcError(caller(admin).audit.list({ limit: 1000 }))).code).toBe("BAD_REQUEST");
    expect((await trpcError(caller(admin).audit.list({ bogus: 1 } as never))).code).toBe("BAD_REQUEST");
    expect((await trpcError(caller(admin).audit.export({ filter: {}, format: "xml" as never }))).code).toBe("BAD_REQUEST");
  });
});
