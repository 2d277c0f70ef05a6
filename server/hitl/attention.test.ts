// The attention figures (docs/performance.md#peoples-attention) from hand-made rows on a real
// test database: tool calls, requests, the share of run time spent waiting, and the median
// time to a decision per channel.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@/server/identity";
import { createTestDb, type TestDb } from "@/test/helpers/db";
import { attentionFigures, median } from "./attention";

const T0 = new Date("2030-05-01T09:00:00Z").getTime();
const at = (s: number) => new Date(T0 + s * 1000);

let t: TestDb;
let launcher: string;
let approver: string;
beforeAll(async () => {
  t = await createTestDb();
  launcher = await createUser(t.db, { email: "op@test.local", password: "test-password-1", role: "operator" });
  approver = await createUser(t.db, { email: "ann@test.local", password: "test-password-1", role: "approver" });
});
afterAll(async () => {
  await t?.cleanup();
});

let n = 0;

/** A run from `start` to `end` (seconds after T0; end null: still going) with `calls` tool.call events. */
async function run(start: number, end: number | null, calls: number): Promise<string> {
  const { id } = await t.db.run.create({
    data: {
      goal: "g",
      agentName: "demo-deploy",
      agentVersion: 1,
      model: "scripted/demo",
      status: end === null ? "waiting_human" : "succeeded",
      createdById: launcher,
      createdAt: at(start - 5),
      startedAt: at(start),
      endedAt: end === null ? null : at(end),
    },
  });
  // Each call and its result: only the calls count.
  for (let i = 0; i < calls; i++)
    for (const [k, type] of ["tool.call", "tool.result"].entries())
      await t.db.runEvent.create({ data: { runId: id, seq: 2 * i + k + 1, type, payload: "{}" } });
  return id;
}

/** A request of the run open from `open` to `closed` (seconds), decided by a person on `channel`, or closed without one. */
async function request(runId: string, open: number, closed: number, channel: string | null, byPerson = true) {
  n++;
  await t.db.humanRequest.create({
    data: {
      runId,
      nodeId: `n${n}`,
      checkpointId: `c${n}`,
      slot: "policy",
      kind: "approve",
      state: byPerson ? "APPROVED" : "CANCELED",
      title: "shell ./deploy.sh staging",
      payload: "{}",
      expiresAt: at(3600),
      hardExpiresAt: at(7200),
      createdAt: at(open),
      updatedAt: at(closed),
      ...(byPerson ? { decidedAt: at(closed), decidedById: approver, channel } : { channel: "kernel" }),
    },
  });
}

describe("attentionFigures", () => {
  it("counts calls and requests of ended runs, the share of their time spent waiting, and the median per channel", async () => {
    // Run a: 100 s, 6 calls, two requests (10 s on the inbox, 30 s on slack).
    const a = await run(0, 100, 6);
    await request(a, 10, 20, "inbox");
    await request(a, 40, 70, "slack");
    // Run b: 50 s, 4 calls, a request answered on the inbox after 20 s, one canceled with the run after 5 s.
    const b = await run(200, 250, 4);
    await request(b, 210, 230, "inbox");
    await request(b, 240, 245, null, false);
    // Run c: no requests; 50 s, 10 calls.
    const c = await run(300, 350, 10);
    // Run d has not ended: left out, with its request.
    const d = await run(400, null, 8);
    await request(d, 410, 500, "api");

    const f = await attentionFigures(t.db, [a, b, c, d, "no-such-run"]);
    expect(f).toMatchObject({ runs: 3, toolCalls: 20, requests: 4, runMs: 200_000, waitingMs: 65_000 });
    expect(f.promptsPer100Calls).toBeCloseTo(20);
    expect(f.waitingShare).toBeCloseTo(0.325);
    expect(f.channels).toEqual([
      { channel: "inbox", decided: 2, medianMs: 15_000 },
      { channel: "slack", decided: 1, medianMs: 30_000 },
    ]);
  });

  it("gives zeros, not NaN, for no runs", async () => {
    expect(await attentionFigures(t.db, [])).toEqual({
      runs: 0,
      toolCalls: 0,
      requests: 0,
      promptsPer100Calls: 0,
      runMs: 0,
      waitingMs: 0,
      waitingShare: 0,
      channels: [],
    });
  });

  it("takes the middle value, or the mean of the two middle ones", () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBe(0);
  });
});
