// Policy versions on a real SQLite database, and the gate that holds the
// active one in memory.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createUser } from "@/server/identity";
import { listAudit } from "@/server/audit";
import type { Db } from "@/server/db";
import { createTestDb, type TestDb } from "@/test/helpers/db";
import {
  DEFAULT_POLICY,
  EARLIER_DEFAULT_POLICIES,
  PolicyConflictError,
  PolicyGate,
  PolicyValidationError,
  activePolicy,
  getPolicyVersion,
  listPolicyVersions,
  savePolicy,
  type PolicyInput,
} from "./index";

let t: TestDb;
let admin: { id: string; name: string };

beforeEach(async () => {
  t = await createTestDb();
  const id = await createUser(t.db, { email: "policy-admin@test.local", name: "Ada Admin", password: "test-password-1", role: "admin" });
  admin = { id, name: "Ada Admin" };
});
afterEach(async () => {
  await t.cleanup();
});

const ALLOW_SHELL = "rules:\n  - { tool: shell, decision: allow }\n";
const DENY_SHELL = "rules:\n  - { tool: shell, decision: deny }\n";
const SHELL: PolicyInput = { actor: { id: "u" }, team: null, tool: "shell", args: { command: "ls" }, tier: "T1" };

describe("policy versions", () => {
  it("an empty database gets the default policy as version 1, once", async () => {
    const first = await activePolicy(t.db);
    expect(first).toMatchObject({ version: 1, source: DEFAULT_POLICY, comment: "Default policy", createdBy: null });
    const again = await activePolicy(t.db);
    expect(again.version).toBe(1);
    expect(await t.db.policyDocument.count()).toBe(1);
  });

  it("an earlier default nobody edited is brought up to the current one; an edited policy is left alone", async () => {
    const [earlier] = EARLIER_DEFAULT_POLICIES;
    await t.db.policyDocument.create({ data: { version: 1, source: earlier, comment: "Default policy" } });
    const upgraded = await activePolicy(t.db);
    expect(upgraded).toMatchObject({ version: 2, source: DEFAULT_POLICY, createdBy: null });
    expect(upgraded.comment).toMatch(/updated with Rein/);
    expect((await activePolicy(t.db)).version).toBe(2);
    // The same text saved by an admin is theirs: it stays.
    await savePolicy(t.db, { source: earlier, comment: "mine", actor: admin });
    expect(await activePolicy(t.db)).toMatchObject({ version: 3, source: earlier });
  });

  it("every earlier default is a policy of its own, older ones without the newer rules", () => {
    expect(new Set(EARLIER_DEFAULT_POLICIES).size).toBe(EARLIER_DEFAULT_POLICIES.length);
    expect(EARLIER_DEFAULT_POLICIES).not.toContain(DEFAULT_POLICY);
    expect(DEFAULT_POLICY).toContain("propose_extension");
    expect(DEFAULT_POLICY).toContain('"mcp:*/*"');
    expect(DEFAULT_POLICY).toContain("tool: [remember, recall]");
    expect(DEFAULT_POLICY).toContain("code given inline to an interpreter");
    expect(DEFAULT_POLICY).toContain("tool: call_remote_agent");
    expect(DEFAULT_POLICY).toContain('tool: "hosted:*"');
    for (const earlier of EARLIER_DEFAULT_POLICIES.slice(0, -6)) expect(earlier).not.toContain("propose_extension");
    for (const earlier of EARLIER_DEFAULT_POLICIES.slice(0, -5)) expect(earlier).not.toContain("mcp:");
    for (const earlier of EARLIER_DEFAULT_POLICIES.slice(0, -4)) expect(earlier).not.toContain("remember");
    for (const earlier of EARLIER_DEFAULT_POLICIES.slice(0, -3)) expect(earlier).not.toContain("code given inline");
    for (const earlier of EARLIER_DEFAULT_POLICIES.slice(0, -1)) expect(earlier).not.toContain("call_remote_agent");
    for (const earlier of EARLIER_DEFAULT_POLICIES) expect(earlier).not.toContain("hosted:*");
    // The second before differs only in its header, which named a document Rein does not ship; the newest lacks the hosted-agent rule.
    expect(EARLIER_DEFAULT_POLICIES.at(-3)).toContain("SPEC section");
    expect(EARLIER_DEFAULT_POLICIES.at(-2)).not.toContain("SPEC");
    expect(EARLIER_DEFAULT_POLICIES.at(-1)).toContain("tool: call_remote_agent");
    expect(DEFAULT_POLICY).not.toContain("SPEC");
    expect(DEFAULT_POLICY).toContain("docs/human-requests-and-policy.md");
  });

  it("the history of an empty database starts with the default policy", async () => {
    expect((await listPolicyVersions(t.db)).map((v) => v.version)).toEqual([1]);
  });

  it("two processes installing the default at once end with one version 1", async () => {
    const other = await (await import("@/server/db")).openDb(t.url);
    try {
      const [a, b] = await Promise.all([activePolicy(t.db), activePolicy(other)]);
      expect([a.version, b.version]).toEqual([1, 1]);
      expect(await t.db.policyDocument.count()).toBe(1);
    } finally {
      await other.$disconnect();
    }
  });

  it("save adds the next version with its author and comment, and a policy.updated audit row", async () => {
    await activePolicy(t.db);
    const saved = await savePolicy(t.db, { source: ALLOW_SHELL, comment: "  only shell  ", actor: admin });
    expect(saved).toMatchObject({ version: 2, source: ALLOW_SHELL, comment: "only shell", createdBy: admin });
    expect((await activePolicy(t.db)).version).toBe(2);

    const { entries } = await listAudit(t.db, { kind: "policy.updated" });
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actorId: admin.id,
      actorName: "Ada Admin",
      channel: "admin",
      subject: "v2",
      detail: { comment: "only shell", previousVersion: 1 },
    });

    await savePolicy(t.db, { source: DENY_SHELL, comment: "", actor: admin });
    const versions = await listPolicyVersions(t.db);
    expect(versions.map((v) => v.version)).toEqual([3, 2, 1]);
    expect(versions[0]).toMatchObject({ comment: "", createdBy: { id: admin.id, name: "Ada Admin" } });
    expect(versions[2].createdBy).toBeNull();
    expect(Object.keys(versions[0])).not.toContain("source");

    expect((await getPolicyVersion(t.db, 2))?.source).toBe(ALLOW_SHELL);
    expect(await getPolicyVersion(t.db, 99)).toBeNull();
  });

  it("an invalid policy is refused with its errors and lines; nothing is stored or audited", async () => {
    await activePolicy(t.db);
    const err = await savePolicy(t.db, { source: "rules:\n  - { tool: shell, decision: maybe }\n", comment: "x", actor: admin }).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(PolicyValidationError);
    expect(err.errors).toEqual([{ line: 2, message: expect.stringContaining("must be allow, deny or ask") }]);
    expect(err.message).toContain("line 2: rule 1, decision");
    expect(await t.db.policyDocument.count()).toBe(1);
    expect(await t.db.auditEntry.count()).toBe(0);
  });

  it("refuses a comment over the limit", async () => {
    await expect(savePolicy(t.db, { source: ALLOW_SHELL, comment: "x".repeat(501), actor: admin })).rejects.toThrow("comment");
    expect(await t.db.policyDocument.count()).toBe(0);
  });

  it("with baseVersion, refuses when another version was saved since, changing nothing", async () => {
    await activePolicy(t.db);
    await savePolicy(t.db, { source: ALLOW_SHELL, comment: "theirs", actor: admin, baseVersion: 1 });
    const err = await savePolicy(t.db, { source: DENY_SHELL, comment: "mine", actor: admin, baseVersion: 1 }).catch((e) => e);
    expect(err).toBeInstanceOf(PolicyConflictError);
    expect(err.message).toContain("Version 2 was saved after the version 1 you edited");
    expect((await activePolicy(t.db)).source).toBe(ALLOW_SHELL);
    expect(await t.db.auditEntry.count()).toBe(1);
  });

  it("retries once when another save took the same version number between read and write", async () => {
    await activePolicy(t.db);
    // A database whose first read of the latest version is stale, as when
    // another process saves between this one's read and its insert.
    let stale = true;
    const racing = new Proxy(t.db, {
      get(target, prop, receiver) {
        if (prop !== "policyDocument") return Reflect.get(target, prop, receiver);
        return new Proxy(target.policyDocument, {
          get(delegate, p) {
            if (p === "findFirst" && stale) {
              return async () => {
                stale = false;
                await savePolicy(t.db, { source: ALLOW_SHELL, comment: "the other process", actor: admin });
                return { version: 1 };
              };
            }
            const value = Reflect.get(delegate, p);
            return typeof value === "function" ? value.bind(delegate) : value;
          },
        });
      },
    }) as Db;
    const saved = await savePolicy(racing, { source: DENY_SHELL, comment: "mine", actor: admin });
    expect(saved.version).toBe(3);
    expect((await listPolicyVersions(t.db)).map((v) => `${v.version}:${v.comment}`)).toEqual([
      "3:mine",
      "2:the other process",
      "1:Default policy",
    ]);
    expect((await listAudit(t.db, { kind: "policy.updated" })).entries.map((e) => e.subject)).toEqual(["v3", "v2"]);
  });
});

describe("PolicyGate", () => {
  it("decides from the active policy, installing the default when there is none", async () => {
    const gate = new PolicyGate(t.db);
    expect(await gate.decide({ ...SHELL, args: { command: "git push" } })).toMatchObject({ effect: "ask", policyVersion: 1 });
    expect(await gate.decide(SHELL)).toMatchObject({ effect: "allow", policyVersion: 1 });
  });

  it("keeps the loaded policy in memory until invalidate(), then loads the new version", async () => {
    let now = 0;
    const gate = new PolicyGate(t.db, { now: () => now });
    await savePolicy(t.db, { source: ALLOW_SHELL, comment: "", actor: admin });
    expect((await gate.decide(SHELL)).effect).toBe("allow");

    await savePolicy(t.db, { source: DENY_SHELL, comment: "", actor: admin });
    now = 1000; // within the recheck interval: still the loaded version
    expect(await gate.decide(SHELL)).toMatchObject({ effect: "allow", policyVersion: 1 });

    gate.invalidate();
    expect(await gate.decide(SHELL)).toMatchObject({ effect: "deny", policyVersion: 2 });
  });

  it("decisions between rechecks do not touch the database", async () => {
    let now = 0;
    const gate = new PolicyGate(t.db, { now: () => now });
    await gate.decide(SHELL);
    let queries = 0;
    const counting = new Proxy(t.db, {
      get(target, prop, receiver) {
        if (prop === "policyDocument") queries++;
        return Reflect.get(target, prop, receiver);
      },
    }) as Db;
    // Swap the database under the loaded gate: nothing should ask it.
    (gate as unknown as { db: Db }).db = counting;
    for (let i = 0; i < 1000; i++) {
      now = i; // under 5 s
      await gate.decide(SHELL);
    }
    expect(queries).toBe(0);
  });

  it("notices another process's save at the next recheck, without blocking decisions", async () => {
    let now = 0;
    const gate = new PolicyGate(t.db, { now: () => now, recheckMs: 5000 });
    await savePolicy(t.db, { source: ALLOW_SHELL, comment: "", actor: admin });
    expect((await gate.decide(SHELL)).effect).toBe("allow");

    // Another process (another client of the same database file) saves.
    const other = await (await import("@/server/db")).openDb(t.url);
    try {
      await savePolicy(other, { source: DENY_SHELL, comment: "elsewhere", actor: admin });
    } finally {
      await other.$disconnect();
    }
    now = 4999;
    expect((await gate.decide(SHELL)).effect).toBe("allow");
    now = 5000;
    // This decision starts the check and is answered from memory.
    expect((await gate.decide(SHELL)).effect).toBe("allow");
    await expect.poll(async () => (await gate.decide(SHELL)).effect).toBe("deny");
    expect((await gate.current()).version).toBe(2);
  });

  it("a stored policy that no longer parses denies every call and says why", async () => {
    await t.db.policyDocument.create({ data: { version: 1, source: "rules: nope\n" } });
    const v = await new PolicyGate(t.db).decide(SHELL);
    expect(v.effect).toBe("deny");
    expect(v.reason).toContain("policy v1 cannot be used");
    expect(v.reason).toContain("must be a list of rules");
  });

  it("concurrent first decisions load the policy once", async () => {
    const gate = new PolicyGate(t.db);
    const verdicts = await Promise.all(Array.from({ length: 20 }, () => gate.decide(SHELL)));
    expect(new Set(verdicts.map((v) => v.effect))).toEqual(new Set(["allow"]));
    expect(await t.db.policyDocument.count()).toBe(1);
  });

  it("refresh() reports a load failure and keeps the loaded policy", async () => {
    let now = 0;
    const errors: unknown[] = [];
    const gate = new PolicyGate(t.db, { now: () => now, onError: (e) => errors.push(e) });
    await gate.decide(SHELL);
    (gate as unknown as { db: Db }).db = new Proxy(t.db, {
      get(target, prop, receiver) {
        if (prop === "policyDocument") throw new Error("database gone");
        return Reflect.get(target, prop, receiver);
      },
    }) as Db;
    now = 10_000;
    expect((await gate.decide(SHELL)).effect).toBe("allow");
    await expect.poll(() => errors.length).toBe(1);
    expect((await gate.decide(SHELL)).effect).toBe("allow");
  });
});
