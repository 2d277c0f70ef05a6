// The audit log on a real SQLite database: recording, filters, paging, exports.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/test/helpers/db";
import { csvField, exportAudit, listAudit, recordAudit, toCsv, type AuditRecord } from "./index";

let t: TestDb;

beforeEach(async () => {
  t = await createTestDb();
});
afterEach(async () => {
  await t.cleanup();
});

/** Parses RFC 4180 CSV (quoted fields with "" and line breaks inside). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') ((field += '"'), i++);
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") (row.push(field), (field = ""));
    else if (c === "\r" && text[i + 1] === "\n") {
      (row.push(field), rows.push(row), (row = []), (field = ""), i++);
    } else field += c;
  }
  if (field || row.length) (row.push(field), rows.push(row));
  return rows;
}

describe("recordAudit", () => {
  it("stores every field and the detail as JSON, and reads it back as an object", async () => {
    const rec = await recordAudit(t.db, {
      kind: "request.transition",
      actorId: "u1",
      actorName: "Alice",
      onBehalfOf: "u2",
      channel: "inbox",
      runId: "run-1",
      requestId: "req-1",
      subject: "shell",
      fromState: "PENDING",
      toState: "APPROVED",
      detail: { comment: "fine", args: { command: "git push" } },
    });
    expect(rec).toMatchObject({ kind: "request.transition", actorName: "Alice", fromState: "PENDING", toState: "APPROVED" });
    expect(rec.id).toBeGreaterThan(0);
    expect(rec.at).toBeInstanceOf(Date);
    const row = await t.db.auditEntry.findUniqueOrThrow({ where: { id: rec.id } });
    expect(JSON.parse(row.detail)).toEqual({ comment: "fine", args: { command: "git push" } });
    const { entries } = await listAudit(t.db, {});
    expect(entries[0].detail).toEqual({ comment: "fine", args: { command: "git push" } });
  });

  it("keeps a given time", async () => {
    const at = new Date("2025-03-04T05:06:07.000Z");
    expect((await recordAudit(t.db, { kind: "k", at })).at).toEqual(at);
  });

  it("defaults missing fields to null and the detail to {}", async () => {
    const rec = await recordAudit(t.db, { kind: "link.refused" });
    expect(rec).toMatchObject({ actorId: null, channel: null, runId: null, subject: null, detail: {} });
  });

  it("refuses an entry without a kind, writing nothing", async () => {
    await expect(recordAudit(t.db, { kind: " " })).rejects.toThrow("needs a kind");
    expect(await t.db.auditEntry.count()).toBe(0);
  });

  it("works inside a transaction, and rolls back with it", async () => {
    await expect(
      t.db.$transaction(async (tx) => {
        await recordAudit(tx, { kind: "x" });
        throw new Error("abort");
      }),
    ).rejects.toThrow("abort");
    expect(await t.db.auditEntry.count()).toBe(0);
  });
});

describe("listAudit", () => {
  async function seed() {
    await recordAudit(t.db, {
      kind: "policy.updated",
      actorId: "admin",
      actorName: "Ada Admin",
      channel: "admin",
      subject: "v2",
      detail: { comment: "tighten shell" },
    });
    await recordAudit(t.db, {
      kind: "policy.decision",
      actorId: "agent:coder",
      actorName: "coder",
      onBehalfOf: "u1",
      channel: "kernel",
      runId: "run-a",
      subject: "shell",
      detail: { effect: "ask" },
    });
    await recordAudit(t.db, {
      kind: "request.transition",
      actorId: "u2",
      actorName: "Bob",
      channel: "inbox",
      runId: "run-a",
      requestId: "req-1",
      fromState: "PENDING",
      toState: "APPROVED",
    });
    await recordAudit(t.db, {
      kind: "request.transition",
      actorId: "scheduler",
      channel: "scheduler",
      runId: "run-b",
      requestId: "req-2",
      fromState: "PENDING",
      toState: "EXPIRED",
    });
  }

  it("returns entries newest first", async () => {
    await seed();
    const { entries, nextCursor } = await listAudit(t.db);
    expect(entries.map((e) => e.kind)).toEqual(["request.transition", "request.transition", "policy.decision", "policy.updated"]);
    expect(nextCursor).toBeNull();
  });

  it("filters by kind, run, request, actor and channel", async () => {
    await seed();
    const kinds = async (f: Parameters<typeof listAudit>[1]) =>
      (await listAudit(t.db, f)).entries.map((e) => `${e.kind}:${e.requestId ?? e.subject}`);
    expect(await kinds({ kind: "policy.updated" })).toEqual(["policy.updated:v2"]);
    expect(await kinds({ runId: "run-a" })).toEqual(["request.transition:req-1", "policy.decision:shell"]);
    expect(await kinds({ requestId: "req-2" })).toEqual(["request.transition:req-2"]);
    expect(await kinds({ actorId: "u2" })).toEqual(["request.transition:req-1"]);
    expect(await kinds({ channel: "kernel" })).toEqual(["policy.decision:shell"]);
    expect(await kinds({ channel: "kernel", kind: "policy.updated" })).toEqual([]);
    // A family: "policy.*" is every policy kind, and nothing else.
    expect(await kinds({ kind: "policy.*" })).toEqual(["policy.decision:shell", "policy.updated:v2"]);
    // The kind is a prefix: "request" finds request.*; a wildcard typed in it matches only itself.
    expect(await kinds({ kind: "request" })).toEqual(["request.transition:req-2", "request.transition:req-1"]);
    expect(await kinds({ kind: "polic" })).toEqual(["policy.decision:shell", "policy.updated:v2"]);
    expect(await kinds({ kind: "polic*" })).toEqual(["policy.decision:shell", "policy.updated:v2"]);
    expect(await kinds({ kind: "%" })).toEqual([]);
    expect(await kinds({ kind: "_olicy" })).toEqual([]);
    expect(await kinds({ kind: "policy%decision" })).toEqual([]);
    expect(await kinds({ kind: "transition" })).toEqual([]);
  });

  it("a kind with % or _ in it is found by itself, not as a wildcard", async () => {
    await recordAudit(t.db, { kind: "odd_kind%x", subject: "odd" });
    await recordAudit(t.db, { kind: "oddXkindYx", subject: "plain" });
    expect((await listAudit(t.db, { kind: "odd_kind%" })).entries.map((e) => e.subject)).toEqual(["odd"]);
  });

  it("hides routine allows when asked, keeping every other decision", async () => {
    await seed();
    await recordAudit(t.db, {
      kind: "policy.decision",
      actorId: "agent:coder",
      channel: "kernel",
      runId: "run-a",
      subject: "read_file",
      toState: "allow",
    });
    await recordAudit(t.db, {
      kind: "policy.decision",
      actorId: "agent:coder",
      channel: "kernel",
      runId: "run-a",
      subject: "shell",
      toState: "deny",
    });
    const subjects = async (hideRoutine?: boolean) =>
      (await listAudit(t.db, { kind: "policy.decision", hideRoutine })).entries.map((e) => e.subject);
    expect(await subjects()).toEqual(["shell", "read_file", "shell"]);
    expect(await subjects(true)).toEqual(["shell", "shell"]);
    expect((await listAudit(t.db, { hideRoutine: true })).entries).toHaveLength(5);
  });

  it("names the people a page mentions, by user id", async () => {
    const user = await t.db.user.create({ data: { email: "bob@example.com", name: "Bob Builder", passwordHash: "x", role: "approver" } });
    await recordAudit(t.db, { kind: "request.transition", actorId: user.id, onBehalfOf: user.id, channel: "inbox" });
    await recordAudit(t.db, { kind: "policy.decision", actorId: "agent:coder", onBehalfOf: "gone-user", channel: "kernel" });
    const page = await listAudit(t.db, {});
    expect(page.people).toEqual({ [user.id]: { name: "Bob Builder", email: "bob@example.com" } });
  });

  it("q matches the subject, the actor's name and the detail", async () => {
    await seed();
    const q = async (text: string) => (await listAudit(t.db, { q: text })).entries.map((e) => e.kind);
    expect(await q("v2")).toEqual(["policy.updated"]);
    expect(await q("bob")).toEqual(["request.transition"]); // case-insensitive
    expect(await q("tighten")).toEqual(["policy.updated"]);
    expect(await q("nothing-like-this")).toEqual([]);
  });

  it("filters by a date range (both ends inclusive)", async () => {
    await seed();
    const all = (await listAudit(t.db)).entries;
    // Spread the rows over four days.
    for (const [i, e] of all.entries())
      await t.db.auditEntry.update({ where: { id: e.id }, data: { at: new Date(Date.UTC(2025, 0, 10 - i)) } });
    const ids = async (from?: Date, to?: Date) => (await listAudit(t.db, { from, to })).entries.map((e) => e.id);
    expect(await ids(new Date(Date.UTC(2025, 0, 9)), new Date(Date.UTC(2025, 0, 10)))).toEqual([all[0].id, all[1].id]);
    expect(await ids(new Date(Date.UTC(2025, 0, 8)))).toEqual([all[0].id, all[1].id, all[2].id]);
    expect(await ids(undefined, new Date(Date.UTC(2025, 0, 7)))).toEqual([all[3].id]);
  });

  it("pages with a cursor without gaps or repeats", async () => {
    for (let i = 0; i < 7; i++) await recordAudit(t.db, { kind: "k", subject: `s${i}` });
    const seen: string[] = [];
    let cursor: number | undefined;
    let pages = 0;
    for (;;) {
      const page: { entries: AuditRecord[]; nextCursor: number | null } = await listAudit(t.db, { limit: 3, cursor });
      pages++;
      seen.push(...page.entries.map((e) => e.subject!));
      if (page.nextCursor === null) break;
      cursor = page.nextCursor;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(["s6", "s5", "s4", "s3", "s2", "s1", "s0"]);
  });

  it("refuses a bad filter", async () => {
    await expect(listAudit(t.db, { limit: 0 })).rejects.toThrow();
    await expect(listAudit(t.db, { limit: 501 })).rejects.toThrow();
    await expect(listAudit(t.db, { nope: 1 } as never)).rejects.toThrow();
  });
});

describe("exportAudit", () => {
  it("CSV has a header, one row per entry, and quotes commas, quotes and line breaks", async () => {
    await recordAudit(t.db, {
      kind: "policy.updated",
      actorName: 'Ada "the admin", Lovelace',
      subject: "v2",
      detail: { comment: "line one\nline two" },
    });
    await recordAudit(t.db, { kind: "policy.decision", subject: "shell", detail: { effect: "deny" } });
    const csv = await exportAudit(t.db, {}, "csv");
    expect(csv.endsWith("\r\n")).toBe(true);
    const rows = parseCsv(csv);
    expect(rows[0]).toEqual([
      "id",
      "at",
      "kind",
      "actorId",
      "actorName",
      "onBehalfOf",
      "channel",
      "runId",
      "teamId",
      "requestId",
      "subject",
      "fromState",
      "toState",
      "detail",
    ]);
    expect(rows).toHaveLength(3);
    expect(rows[1][2]).toBe("policy.decision");
    expect(rows[2][4]).toBe('Ada "the admin", Lovelace');
    expect(JSON.parse(rows[2][13])).toEqual({ comment: "line one\nline two" });
    expect(new Date(rows[2][1]).toISOString()).toBe(rows[2][1]);
    expect(rows[2][3]).toBe("");
  });

  it("CSV defuses spreadsheet formulas", () => {
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvField("+1")).toBe("'+1");
    expect(csvField("@cmd")).toBe("'@cmd");
    expect(csvField("plain")).toBe("plain");
    expect(toCsv([])).toBe("id,at,kind,actorId,actorName,onBehalfOf,channel,runId,teamId,requestId,subject,fromState,toState,detail\r\n");
  });

  it("JSON is an array of the entries with their details as objects, filtered", async () => {
    await recordAudit(t.db, { kind: "a", detail: { n: 1 } });
    await recordAudit(t.db, { kind: "b", detail: { n: 2 } });
    const json = JSON.parse(await exportAudit(t.db, { kind: "b" }, "json"));
    expect(json).toHaveLength(1);
    expect(json[0]).toMatchObject({ kind: "b", detail: { n: 2 } });
    expect(typeof json[0].at).toBe("string");
  });

  it("exports more than one page", async () => {
    await t.db.auditEntry.createMany({ data: Array.from({ length: 2100 }, (_, i) => ({ kind: "bulk", subject: `s${i}` })) });
    const rows = parseCsv(await exportAudit(t.db, {}, "csv"));
    expect(rows).toHaveLength(2101);
    expect(new Set(rows.slice(1).map((r) => r[0])).size).toBe(2100);
  });
});
