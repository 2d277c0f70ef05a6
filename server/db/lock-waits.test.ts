// Writes held up by another session's row locks, as behind a process frozen
// inside a transaction: retried past Prisma's transaction timeout until that
// session ends, DbBusyError (a transient error) past the budget, and nothing
// else retried (docs/several-machines.md#frozen-workers).
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createUser } from "@/server/identity";
import { makeTempDir, type TestDb } from "@/test/helpers/db";
import { createPgTestDb, TEST_PG_URL, type PgSchema } from "@/test/helpers/pg";
import { DbBusyError, LeaseLostError, isEchoOfLostWork, isLockWait, isTransientDbError, retryingTransaction } from "./index";

let t: TestDb & { pg: PgSchema };
let userId: string;
let runId: string;

beforeEach(async () => {
  t = await createPgTestDb(makeTempDir("rein-lock-waits-"));
  userId = await createUser(t.db, { email: "op@test.local", password: "test-password-1", role: "operator" });
  runId = (
    await t.db.run.create({
      data: { goal: "g", agentName: "demo-coder", agentVersion: 1, model: "scripted/demo-coder", createdById: userId, status: "running" },
    })
  ).id;
});

afterEach(async () => {
  await t.cleanup();
});

/** A session of its own inside a transaction that holds the run's row, then sits idle as a frozen process's would. */
async function frozenSession(): Promise<{ end(): Promise<void> }> {
  const client = new pg.Client({ connectionString: TEST_PG_URL });
  client.on("error", () => {}); // it is ended from outside
  await client.connect();
  await client.query(`SET search_path TO ${t.pg.schema}`);
  await client.query("BEGIN");
  await client.query(`SELECT 1 FROM "Run" WHERE id = $1 FOR UPDATE`, [runId]);
  const pid = Number((await client.query("SELECT pg_backend_pid() AS pid")).rows[0].pid);
  return {
    // What PostgreSQL does to it after idle_in_transaction_session_timeout: the session ends, its locks go.
    async end() {
      await t.pg.sql("SELECT pg_terminate_backend($1)", [pid]);
      await client.end().catch(() => {});
    },
  };
}

const lastSeq = async () => (await t.db.run.findUniqueOrThrow({ where: { id: runId }, select: { lastSeq: true } })).lastSeq;

describe("a write held up by another session's row locks (PostgreSQL)", () => {
  it("waits, retries, and goes through once the session ends, though that takes longer than Prisma gives a transaction; a plain transaction fails", async () => {
    const frozen = await frozenSession();
    let attempts = 0;
    const retried = retryingTransaction(t.db, async (tx) => {
      attempts++;
      await tx.run.update({ where: { id: runId }, data: { lastSeq: { increment: 1 } } });
    });
    // The same write as one plain transaction: it outlives Prisma's 5 s timeout and is rolled back at commit.
    const plain = t.db.$transaction(async (tx) => {
      await tx.run.update({ where: { id: runId }, data: { lastSeq: { increment: 10 } } });
    });
    const plainOutcome = plain.then(
      () => null,
      (e: unknown) => e,
    );
    await new Promise((r) => setTimeout(r, 6_000));
    await frozen.end();
    await retried;
    const plainErr = await plainOutcome;
    expect(plainErr, "the plain transaction should have expired").toMatchObject({ code: "P2028" });
    expect(isLockWait(plainErr)).toBe(true);
    expect(attempts).toBeGreaterThan(1);
    expect(await lastSeq()).toBe(1);
  }, 30_000);

  it("gives up past its budget with DbBusyError, which counts as transient (a worker resumes the run later); nothing is written", async () => {
    const frozen = await frozenSession();
    let attempts = 0;
    const err = await retryingTransaction(
      t.db,
      async (tx) => {
        attempts++;
        await tx.run.update({ where: { id: runId }, data: { lastSeq: { increment: 1 } } });
      },
      { budgetMs: 1_500, lockWaitMs: 200 },
    ).then(
      () => null,
      (e: unknown) => e,
    );
    await frozen.end();
    expect(err).toBeInstanceOf(DbBusyError);
    expect(isTransientDbError(err)).toBe(true);
    expect(attempts).toBeGreaterThan(1);
    expect(await lastSeq()).toBe(0);
  });

  // A thawed worker hears these from promises nobody awaits; they must not stop the process (server.ts).
  it("tells the echo of lost work (an expired transaction, a refused write) from a real error", async () => {
    const expired = await t.db
      .$transaction(
        async (tx) => {
          await new Promise((r) => setTimeout(r, 120));
          await tx.user.count();
        },
        { timeout: 50 },
      )
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(expired).toMatchObject({ code: "P2028" });
    expect(isEchoOfLostWork(expired)).toBe(true);
    expect(isEchoOfLostWork(new LeaseLostError(runId, 1))).toBe(true);
    const duplicate = await t.db.user.create({ data: { email: "op@test.local", name: "again", passwordHash: "x", role: "viewer" } }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isEchoOfLostWork(duplicate)).toBe(false);
  });

  it("retries nothing else: the write's own error is thrown at its first attempt", async () => {
    let attempts = 0;
    const err = await retryingTransaction(t.db, async (tx) => {
      attempts++;
      await tx.user.create({ data: { email: "op@test.local", name: "again", passwordHash: "x", role: "viewer" } });
    }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: "P2002" });
    expect(isLockWait(err)).toBe(false);
    expect(attempts).toBe(1);
  });
});
