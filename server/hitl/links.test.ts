import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Db } from "@/server/db";
import { createTestDb, type TestDb } from "@/test/helpers/db";
import { memoryKeyRing, newKeyRecord, type LinkKeyRing } from "./keys";
import { createResumeLink, decideWithLink, LinkError, openResumeLink, type DecideFn, type LinkDeps } from "./links";
import { hashResumeToken, signToken } from "./tokens";
import { HumanRequestError, type Decider, type DecisionInput, type RequestKind } from "./types";

const T0 = new Date("2030-05-01T09:00:00Z");
const DAY = 86_400_000;
const at = (ms: number) => new Date(T0.getTime() + ms);

const admin: Decider = { id: "u_admin", name: "Ada Admin", role: "admin" };
const approver: Decider = { id: "u_appr", name: "Abe Approver", role: "approver" };
const operator: Decider = { id: "u_op", name: "Olga Operator", role: "operator" };
const APPROVE: DecisionInput = { decision: "approve", comment: "fine" };

let tdb: TestDb;
let db: Db;
beforeAll(async () => {
  tdb = await createTestDb();
  db = tdb.db;
});
afterAll(async () => {
  await tdb?.cleanup();
});

async function insertRequest(over: { kind?: RequestKind; state?: string; requiredRole?: string; hardExpiresAt?: Date } = {}) {
  const runId = `run_${crypto.randomBytes(4).toString("hex")}`;
  return db.humanRequest.create({
    data: {
      runId,
      nodeId: "node_1",
      checkpointId: "cp_1",
      slot: "policy",
      kind: over.kind ?? "approve",
      state: over.state ?? "PENDING",
      title: "Run git push to origin?",
      payload: JSON.stringify({ tool: "shell", args: { cmd: "git push" } }),
      requiredRole: over.requiredRole ?? "approver",
      expiresAt: at(DAY),
      hardExpiresAt: over.hardExpiresAt ?? at(30 * DAY),
    },
  });
}

/** A broker stand-in: closes the request, as the real one does, and counts its calls. */
function fakeDecide() {
  return vi.fn<DecideFn<{ state: string }>>(async (requestId, decider, input) => {
    await db.humanRequest.update({
      where: { id: requestId },
      data: { state: "APPROVED", decision: JSON.stringify(input), decidedById: decider.id, channel: "link" },
    });
    return { state: "APPROVED" };
  });
}

function makeDeps(over: Partial<LinkDeps<{ state: string }>> = {}) {
  const keys = memoryKeyRing({ version: 1, current: newKeyRecord(T0), previous: null }, { now: () => T0 });
  return { db, keys, decide: fakeDecide(), now: () => T0, ...over };
}

async function refusal(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(LinkError);
  return { code: (err as LinkError).reason, message: (err as LinkError).message };
}

const refusalsFor = (actorId: string) => db.auditEntry.findMany({ where: { kind: "link.refused", actorId }, orderBy: { id: "asc" } });

describe("resume links", () => {
  it("round trip: create stores only a hash and audits; open shows the request; decide calls the broker once", async () => {
    const req = await insertRequest();
    const deps = makeDeps({ baseUrl: "https://rein.example.org/" });
    const link = await createResumeLink(deps, req.id, admin);
    expect(link.url).toBe(`https://rein.example.org/resume?t=${link.token}`);
    expect(link.expiresAt).toEqual(at(7 * DAY));

    const row = await db.resumeToken.findUniqueOrThrow({ where: { tokenHash: hashResumeToken(link.token) } });
    expect(row).toMatchObject({ requestId: req.id, createdById: admin.id, expiresAt: at(7 * DAY), consumedAt: null });
    expect(JSON.stringify(row)).not.toContain(link.token.split(".")[1]);
    const created = await db.auditEntry.findFirstOrThrow({ where: { kind: "link.created", requestId: req.id } });
    expect(created).toMatchObject({ actorId: admin.id, actorName: admin.name, runId: req.runId });
    expect(JSON.stringify(created)).not.toContain(link.token);

    const opened = await openResumeLink(deps, link.token, approver);
    expect(opened).toMatchObject({ requestId: req.id, linkExpiresAt: at(7 * DAY) });
    expect(opened.request).toMatchObject({ id: req.id, kind: "approve", state: "PENDING", requiredRole: "approver" });
    expect(opened.request.payload).toEqual({ tool: "shell", args: { cmd: "git push" } });

    await expect(decideWithLink(deps, link.token, approver, APPROVE)).resolves.toEqual({ state: "APPROVED" });
    expect(deps.decide).toHaveBeenCalledTimes(1);
    expect(deps.decide).toHaveBeenCalledWith(req.id, approver, APPROVE, "link");
    const used = await db.resumeToken.findUniqueOrThrow({ where: { tokenHash: hashResumeToken(link.token) } });
    expect(used).toMatchObject({ consumedAt: T0, consumedById: approver.id });
  });

  it("expires at the request's hard expiry when that comes before 7 days", async () => {
    const req = await insertRequest({ hardExpiresAt: new Date(T0.getTime() + 2 * DAY + 1500) });
    const link = await createResumeLink(makeDeps(), req.id, admin);
    expect(link.expiresAt).toEqual(at(2 * DAY + 1000));
    expect(link.url).toBe(`/resume?t=${link.token}`);
  });

  it("creates links only for open requests and creators with the required role", async () => {
    const deps = makeDeps();
    const err = (p: Promise<unknown>) => p.catch((e: HumanRequestError) => [e.constructor, e.reason]);
    expect(await err(createResumeLink(deps, "missing", admin))).toEqual([HumanRequestError, "NOT_FOUND"]);
    const closed = await insertRequest({ state: "REJECTED" });
    expect(await err(createResumeLink(deps, closed.id, admin))).toEqual([HumanRequestError, "CLOSED"]);
    const adminOnly = await insertRequest({ requiredRole: "admin" });
    await expect(createResumeLink(deps, adminOnly.id, approver)).rejects.toThrow(
      "Making a link for this request needs the admin role; you are approver",
    );
    const past = await insertRequest({ hardExpiresAt: at(-1000) });
    expect(await err(createResumeLink(deps, past.id, admin))).toEqual([HumanRequestError, "CLOSED"]);
    const escalated = await insertRequest({ state: "ESCALATED" });
    await expect(createResumeLink(deps, escalated.id, admin)).resolves.toMatchObject({ token: expect.any(String) });
    expect(await db.resumeToken.count({ where: { requestId: { in: [closed.id, adminOnly.id, past.id] } } })).toBe(0);
  });

  it("opening does not consume the link", async () => {
    const req = await insertRequest();
    const deps = makeDeps();
    const { token } = await createResumeLink(deps, req.id, admin);
    await openResumeLink(deps, token, approver);
    await openResumeLink(deps, token, admin);
    expect((await db.resumeToken.findFirstOrThrow({ where: { requestId: req.id } })).consumedAt).toBeNull();
    await expect(decideWithLink(deps, token, approver, APPROVE)).resolves.toEqual({ state: "APPROVED" });
  });

  it("a used link is refused: a second decide gets USED and the broker is called once", async () => {
    const req = await insertRequest();
    // The broker here leaves the request open, so only single use can stop the second decision.
    const decide = vi.fn<DecideFn<string>>(async () => "decided");
    const deps = { ...makeDeps(), decide };
    const { token } = await createResumeLink(deps, req.id, admin);
    await expect(decideWithLink(deps, token, approver, APPROVE)).resolves.toBe("decided");
    expect(await refusal(decideWithLink(deps, token, admin, APPROVE))).toEqual({
      code: "USED",
      message: "This link has already been used",
    });
    expect(await refusal(openResumeLink(deps, token, admin))).toMatchObject({ code: "USED" });
    expect(decide).toHaveBeenCalledTimes(1);
  });

  it("two concurrent uses: exactly one succeeds, even when both pass every check before either consumes", async () => {
    const req = await insertRequest();
    const decide = vi.fn<DecideFn<string>>(async () => "decided");
    const base = makeDeps();
    const { token } = await createResumeLink(base, req.id, admin);
    // Hold each consume until both callers have reached it.
    let waiting = 0;
    let release!: () => void;
    const bothThere = new Promise<void>((r) => (release = r));
    const racingDb = new Proxy(db, {
      get(target, prop) {
        if (prop === "resumeToken") {
          const delegate = target.resumeToken;
          return new Proxy(delegate, {
            get(d, q) {
              if (q !== "updateMany") return Reflect.get(d, q);
              return async (args: Parameters<typeof delegate.updateMany>[0]) => {
                if (++waiting === 2) release();
                await bothThere;
                return delegate.updateMany(args);
              };
            },
          });
        }
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const deps = { ...base, db: racingDb, decide };
    const results = await Promise.allSettled([decideWithLink(deps, token, approver, APPROVE), decideWithLink(deps, token, admin, APPROVE)]);
    expect(waiting).toBe(2);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const rejected = results.filter((r) => r.status === "rejected");
    expect(rejected).toHaveLength(1);
    expect((rejected[0] as PromiseRejectedResult).reason).toMatchObject({ reason: "USED" });
    expect(decide).toHaveBeenCalledTimes(1);
  });

  it("concurrent uses with the real broker stand-in: exactly one of several succeeds", async () => {
    const req = await insertRequest();
    const deps = makeDeps();
    const { token } = await createResumeLink(deps, req.id, admin);
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => decideWithLink(deps, token, approver, APPROVE)));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results) {
      if (r.status === "rejected") expect(["USED", "CLOSED"]).toContain((r.reason as LinkError).reason);
    }
    expect(deps.decide).toHaveBeenCalledTimes(1);
  });

  it("a link stays used when the broker refuses the decision, and the broker's error propagates", async () => {
    const req = await insertRequest();
    const decide = vi.fn<DecideFn>(async () => {
      throw new HumanRequestError("CLOSED", "Request was decided in the inbox a moment ago");
    });
    const deps = { ...makeDeps(), decide };
    const { token } = await createResumeLink(deps, req.id, admin);
    await expect(decideWithLink(deps, token, approver, APPROVE)).rejects.toThrow(HumanRequestError);
    expect((await db.resumeToken.findFirstOrThrow({ where: { requestId: req.id } })).consumedAt).toEqual(T0);
    expect(await refusal(decideWithLink(deps, token, approver, APPROVE))).toMatchObject({ code: "USED" });
  });

  it("a decision the request's kind does not take is refused without using the link", async () => {
    const req = await insertRequest({ kind: "veto" });
    const deps = makeDeps();
    const { token } = await createResumeLink(deps, req.id, admin);
    await expect(decideWithLink(deps, token, approver, { decision: "choose", optionId: "a" })).rejects.toMatchObject({
      reason: "INVALID_DECISION",
    });
    await expect(
      decideWithLink(deps, token, approver, { decision: "approve", comment: 5 } as unknown as DecisionInput),
    ).rejects.toMatchObject({ reason: "INVALID_DECISION" });
    expect(deps.decide).not.toHaveBeenCalled();
    await expect(decideWithLink(deps, token, approver, { decision: "veto" })).resolves.toEqual({ state: "APPROVED" });
  });

  it("a user below the required role is refused with the roles named", async () => {
    const req = await insertRequest();
    const deps = makeDeps();
    const { token } = await createResumeLink(deps, req.id, admin);
    const expected = { code: "WRONG_ROLE", message: "Deciding this request needs the approver role; you are operator" };
    expect(await refusal(openResumeLink(deps, token, operator))).toEqual(expected);
    expect(await refusal(decideWithLink(deps, token, operator, APPROVE))).toEqual(expected);
    expect(deps.decide).not.toHaveBeenCalled();
    // A role raised on the request after the link was made applies too.
    await db.humanRequest.update({ where: { id: req.id }, data: { requiredRole: "admin" } });
    expect(await refusal(openResumeLink(deps, token, approver))).toEqual({
      code: "WRONG_ROLE",
      message: "Deciding this request needs the admin role; you are approver",
    });
  });

  it("a link to a request that was decided another way is CLOSED", async () => {
    const req = await insertRequest();
    const deps = makeDeps();
    const { token } = await createResumeLink(deps, req.id, admin);
    await db.humanRequest.update({ where: { id: req.id }, data: { state: "REJECTED" } });
    const expected = { code: "CLOSED", message: "This request was already decided" };
    expect(await refusal(openResumeLink(deps, token, approver))).toEqual(expected);
    expect(await refusal(decideWithLink(deps, token, approver, APPROVE))).toEqual(expected);
    expect((await db.resumeToken.findFirstOrThrow({ where: { requestId: req.id } })).consumedAt).toBeNull();
  });

  it("expired, forged, tampered and never-issued tokens are refused", async () => {
    const req = await insertRequest();
    const deps = makeDeps();
    const { token } = await createResumeLink(deps, req.id, admin);

    const late = { ...deps, now: () => at(7 * DAY) };
    expect(await refusal(openResumeLink(late, token, approver))).toEqual({
      code: "EXPIRED",
      message: "This link expired at 2030-05-08 09:00 UTC",
    });
    expect(await refusal(decideWithLink(late, token, approver, APPROVE))).toMatchObject({ code: "EXPIRED" });

    const otherKeys = { ...deps, keys: memoryKeyRing({ version: 1, current: newKeyRecord(T0), previous: null }) };
    expect(await refusal(openResumeLink(otherKeys, token, approver))).toMatchObject({ code: "FORGED" });

    const [p, m] = token.split(".");
    const flipped = (m[0] === "A" ? "B" : "A") + m.slice(1);
    expect(await refusal(decideWithLink(deps, `${p}.${flipped}`, approver, APPROVE))).toMatchObject({ code: "FORGED" });
    expect(await refusal(openResumeLink(deps, p, approver))).toMatchObject({ code: "MALFORMED" });

    // Correctly signed but never issued (no ResumeToken row): refused as forged.
    const unissued = signToken(deps.keys, {
      run_id: req.runId,
      node_id: req.nodeId,
      checkpoint_id: req.checkpointId,
      decision_slot: req.slot,
      request_id: req.id,
      actor_role: "approver",
      expires_at: Math.floor(at(DAY).getTime() / 1000),
    });
    expect(await refusal(decideWithLink(deps, unissued.token, approver, APPROVE))).toEqual({
      code: "FORGED",
      message: "This link's signature is not valid",
    });
    expect(deps.decide).not.toHaveBeenCalled();
    expect((await db.resumeToken.findFirstOrThrow({ where: { requestId: req.id } })).consumedAt).toBeNull();
  });

  it("links signed with the previous key work inside the grace window and are RETIRED_KEY after it", async () => {
    let now = T0;
    const keys: LinkKeyRing = memoryKeyRing(
      { version: 1, current: newKeyRecord(T0), previous: null },
      { now: () => now, rotateAfterMs: 30 * DAY, graceMs: 3 * DAY },
    );
    const req = await insertRequest({ hardExpiresAt: at(60 * DAY) });
    const deps = { ...makeDeps(), keys, now: () => now };
    now = at(29 * DAY);
    const { token } = await createResumeLink(deps, req.id, admin);
    now = at(30 * DAY);
    await createResumeLink(deps, req.id, admin); // rotates
    now = at(32 * DAY);
    await expect(openResumeLink(deps, token, approver)).resolves.toMatchObject({ requestId: req.id });
    now = at(33 * DAY);
    expect(await refusal(openResumeLink(deps, token, approver))).toEqual({
      code: "RETIRED_KEY",
      message: "This link was signed with a key that has been retired; ask for a new link",
    });
  });

  it("every refusal is audited with its code and never the token", async () => {
    const req = await insertRequest();
    const deps = makeDeps();
    const { token } = await createResumeLink(deps, req.id, admin);
    const auditor: Decider = { id: `u_${crypto.randomBytes(4).toString("hex")}`, name: "Ivy", role: "operator" };
    const [p, m] = token.split(".");
    await refusal(openResumeLink(deps, `${p}.${m.slice(0, -2)}`, auditor)); // MALFORMED
    await refusal(openResumeLink(deps, token, auditor)); // WRONG_ROLE
    await refusal(openResumeLink({ ...deps, now: () => at(8 * DAY) }, token, auditor)); // EXPIRED
    await decideWithLink(deps, token, { ...auditor, role: "approver" }, APPROVE);
    await refusal(decideWithLink(deps, token, { ...auditor, role: "approver" }, APPROVE)); // USED

    const rows = await refusalsFor(auditor.id);
    expect(rows.map((r) => JSON.parse(r.detail))).toEqual([
      { code: "MALFORMED" },
      { code: "WRONG_ROLE" },
      { code: "EXPIRED" },
      { code: "USED" },
    ]);
    for (const r of rows) expect(r).toMatchObject({ channel: "link", actorName: "Ivy" });
    expect(rows[0].requestId).toBeNull(); // an unverified token names no request
    expect(rows[1]).toMatchObject({ requestId: req.id, runId: req.runId });
    const text = JSON.stringify(rows);
    for (const piece of [token, p, m, m.slice(0, 16), p.slice(-32), hashResumeToken(token)]) {
      expect(text).not.toContain(piece);
    }
    const everything = JSON.stringify(await db.auditEntry.findMany());
    expect(everything).not.toContain(m.slice(0, 16));
  });
});
