// The HITLBroker under random sequences of operations
// (docs/human-requests-and-policy.md#reference-human-requests): people deciding
// (right and wrong answers, roles, two at once), the TTL ladder running as the
// clock moves, restarts (a new broker over a new connection to the same
// database), runs ending. After every step the database must tell a consistent
// story: each transition allowed and audited exactly once, closed requests
// staying closed, one human.decided event per closed request, and the waiting
// run back in the queue exactly when its request closed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { openDb, type Db } from "@/server/db";
import { createUser, ROLES, roleAtLeast, type Role } from "@/server/identity";
import type { NewRunEvent, RunState } from "@/server/kernel";
import { createTestDb, type TestDb } from "@/test/helpers/db";
import { HitlBroker, type BrokerDeps } from "./broker";
import { DEFAULT_LADDER } from "./ladder";
import { createRequest } from "./requests";
import { canTransitionRequest, isOpen } from "./states";
import { HumanRequestError, type Decider, type DecisionInput, type RequestKind, type RequestSlot, type RequestState } from "./types";

const HOUR = 3600_000;
const OPTIONS = [
  { id: "a", label: "A" },
  { id: "b", label: "B" },
];
const SCHEMA = { type: "object", properties: { x: { type: "number", maximum: 10 } }, required: ["x"], additionalProperties: false };

/** The kernel's run store as the broker uses it, in memory. Events are kept as appended (no key dedupe), so a repeated append shows. */
type RunsPort = BrokerDeps["runs"];

class FakeRuns implements RunsPort {
  status = new Map<string, RunState>();
  events: Array<{ runId: string; e: NewRunEvent }> = [];
  enqueued: string[] = [];
  /** The next transition dies with the process (a crash right after the broker's transaction committed). */
  crashNext = false;
  async appendEvents(runId: string, events: NewRunEvent[]) {
    for (const e of events) this.events.push({ runId, e });
    return [];
  }
  async transition(runId: string, from: RunState[], to: RunState) {
    if (this.crashNext) {
      this.crashNext = false;
      throw new Error("the process died here");
    }
    const s = this.status.get(runId);
    if (!s || !from.includes(s)) return false;
    this.status.set(runId, to);
    return true;
  }
  async runIdsIn(states: RunState[]) {
    return [...this.status].filter(([, s]) => states.includes(s)).map(([id]) => id);
  }
}

// --- operations -------------------------------------------------------------

/** fit: answer with one of the two decisions the kind takes (`pick`); else with `decision`, whatever the kind. */
type Answer = { fit: boolean; pick: number; decision: DecisionInput["decision"]; variant: number; comment: boolean };
type Op =
  | { op: "create"; kind: RequestKind; slot: RequestSlot; role: Role; ttl: number | null }
  | { op: "decide"; req: number; role: Role; answer: Answer }
  | { op: "race"; req: number; a: Answer; b: Answer }
  | { op: "advance"; ms: number }
  | { op: "raceScheduler"; req: number; answer: Answer }
  | { op: "restart" }
  | { op: "crash"; via: "scheduler" | "decide"; req: number; variant: number; ms: number }
  | { op: "cancelRun"; req: number };

const kindArb = fc.constantFrom<RequestKind>("approve", "choose", "provide", "veto");
const roleArb = fc.oneof(
  { weight: 3, arbitrary: fc.constant<Role>("admin") },
  { weight: 3, arbitrary: fc.constant<Role>("approver") },
  { weight: 2, arbitrary: fc.constant<Role>("operator") },
  { weight: 1, arbitrary: fc.constant<Role>("viewer") },
);
const answerArb: fc.Arbitrary<Answer> = fc.record({
  fit: fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
  pick: fc.nat(1),
  decision: fc.constantFrom<DecisionInput["decision"]>("approve", "reject", "veto", "choose", "provide"),
  // 0: a right answer; 1, 2: a wrong option or value; 3: valid edited arguments; 4: invalid ones.
  variant: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 4, arbitrary: fc.integer({ min: 1, max: 4 }) }),
  comment: fc.boolean(),
});
const createArb = fc.record({
  op: fc.constant("create" as const),
  kind: kindArb,
  slot: fc.constantFrom<RequestSlot>("policy", "ask_human", "replay"),
  role: fc.constantFrom<Role>("operator", "approver", "admin"),
  ttl: fc.constantFrom<number | null>(null, 60, (2 * HOUR) / 1000),
});
const advanceMs = fc.constantFrom(1000, 61_000, 2 * HOUR + 1000, 24 * HOUR + 1000, 48 * HOUR + 1000, 7 * 24 * HOUR);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: createArb },
  { weight: 5, arbitrary: fc.record({ op: fc.constant("decide" as const), req: fc.nat(), role: roleArb, answer: answerArb }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("race" as const), req: fc.nat(), a: answerArb, b: answerArb }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("advance" as const), ms: advanceMs }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("raceScheduler" as const), req: fc.nat(), answer: answerArb }) },
  { weight: 1, arbitrary: fc.constant({ op: "restart" as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("crash" as const),
      via: fc.constantFrom<"scheduler" | "decide">("scheduler", "decide"),
      req: fc.nat(),
      variant: fc.nat(1),
      ms: advanceMs,
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("cancelRun" as const), req: fc.nat() }) },
);
const sequenceArb = fc.tuple(fc.array(createArb, { minLength: 1, maxLength: 3 }), fc.array(opArb, { minLength: 1, maxLength: 15 }));

/** The answer a kind takes, valid, so that a test can demand success. */
const VALID: Record<RequestKind, DecisionInput[]> = {
  approve: [{ decision: "approve" }, { decision: "reject" }],
  choose: [{ decision: "choose", optionId: "b" }, { decision: "reject" }],
  provide: [{ decision: "provide", value: { x: 3 } }, { decision: "reject" }],
  veto: [{ decision: "veto" }, { decision: "approve" }],
};

/** Turns a generated answer into an input: some are right, some wrong in one way or another. */
function inputOf(a: Answer, kind: RequestKind): DecisionInput {
  const decision = a.fit ? VALID[kind][a.pick].decision : a.decision;
  const input: DecisionInput = { decision, ...(a.comment ? { comment: "  because  " } : {}) };
  if (decision === "choose") {
    if (a.variant === 1) input.optionId = "nope";
    else if (a.variant !== 2) input.optionId = a.variant === 0 ? "a" : "b";
  }
  if (decision === "provide") {
    if (a.variant === 1) input.value = { x: 99 };
    else if (a.variant === 2) input.value = "not an object";
    else if (a.variant !== 4) input.value = { x: a.variant };
  }
  if (a.variant === 3 && decision !== "provide") input.editedArguments = { command: "echo edited" };
  if (a.variant === 4 && decision !== "choose") input.editedArguments = { command: 42 };
  return input;
}

/** Where each answer leads for each kind (docs/human-requests-and-policy.md#kinds), written out independently of states.ts. */
const TARGETS: Record<RequestKind, Partial<Record<DecisionInput["decision"], RequestState>>> = {
  approve: { approve: "APPROVED", reject: "REJECTED" },
  choose: { choose: "APPROVED", reject: "REJECTED" },
  provide: { provide: "APPROVED", reject: "REJECTED" },
  veto: { veto: "REJECTED", approve: "APPROVED" },
};

/** The state a decision must lead to, or null when it must be refused (and change nothing). */
function expectedTarget(
  r: { kind: RequestKind; slot: RequestSlot; requiredRole: Role },
  role: Role,
  input: DecisionInput,
  state: RequestState,
): RequestState | null {
  if (!roleAtLeast(role, r.requiredRole) || !isOpen(state)) return null;
  const target = TARGETS[r.kind][input.decision];
  if (!target) return null;
  if (input.editedArguments) {
    // Only a policy approval, or a replay choice, takes edited arguments; never with a rejection; they must be valid.
    const editable = (r.kind === "approve" && r.slot === "policy") || (r.kind === "choose" && r.slot === "replay");
    if (!editable || input.decision === "reject" || typeof input.editedArguments.command !== "string") return null;
  }
  if (input.decision === "choose" && !OPTIONS.some((o) => o.id === input.optionId)) return null;
  if (input.decision === "provide") {
    const v = input.value as Record<string, unknown> | undefined;
    const matches = !!v && typeof v === "object" && typeof v.x === "number" && v.x <= 10 && Object.keys(v).every((k) => k === "x");
    if (!matches) return null;
  }
  return target;
}

// --- the world one sequence runs in -------------------------------------------

interface Tracked {
  id: string;
  runId: string;
  kind: RequestKind;
  slot: RequestSlot;
  requiredRole: Role;
  lastState: RequestState;
  /** Set when a person's decision succeeded: who. */
  decidedBy?: string;
  runCanceled: boolean;
}

let t: TestDb;
const users = {} as Record<Role, Decider>;
let seq = 0;

beforeAll(async () => {
  t = await createTestDb();
  for (const role of ROLES) {
    const id = await createUser(t.db, { email: `${role}@prop.test`, name: `The ${role}`, password: "test-password-1", role });
    users[role] = { id, name: `The ${role}`, role };
  }
});
afterAll(async () => {
  await t?.cleanup();
});

class World {
  clock = Date.UTC(2030, 0, 1);
  runs = new FakeRuns();
  db: Db;
  broker: HitlBroker;
  extraDbs: Db[] = [];
  tracked: Tracked[] = [];
  /** Dies (throws) when the broker reports this change: a crash right after that transaction. */
  crashOnChange: ((state: string) => boolean) | null = null;
  readonly iteration = ++seq;

  constructor() {
    this.db = t.db;
    this.broker = this.makeBroker(this.db);
  }

  makeBroker(db: Db) {
    return new HitlBroker({
      db,
      runs: this.runs,
      enqueue: (runId) => this.runs.enqueued.push(runId),
      onChange: (change) => {
        if (this.crashOnChange?.(change.state)) throw new Error("the process died here");
      },
      validateArgs: (_tool, args) => (typeof (args as { command?: unknown }).command === "string" ? null : "command: expected string"),
      now: () => new Date(this.clock),
      log: { error() {} },
    });
  }

  /** A new process over the same database: a new connection and broker, then the start-up repair. */
  async restart() {
    const db = await openDb(t.url);
    this.extraDbs.push(db);
    this.db = db;
    this.broker = this.makeBroker(db);
    await this.broker.reconcile();
  }

  pick(n: number): Tracked {
    return this.tracked[n % this.tracked.length];
  }

  async create(op: Extract<Op, { op: "create" }>) {
    const runId = `prop-run-${this.iteration}-${this.tracked.length}`;
    this.runs.status.set(runId, "waiting_human");
    const { row, created } = await createRequest(
      this.db,
      {
        runId,
        nodeId: "1:call_0_0",
        checkpointId: "cp-1",
        slot: op.slot,
        kind: op.kind,
        title: `${op.kind} something`,
        payload: {
          tool: "shell",
          args: { command: "./deploy.sh production" },
          ...(op.kind === "choose" ? { options: OPTIONS, allowEditedArguments: op.slot === "replay" } : {}),
          ...(op.kind === "provide" ? { schema: SCHEMA } : {}),
        },
        requiredRole: op.role,
        teamId: null,
        requestedById: users.operator.id,
        ttlSec: op.ttl ?? undefined,
      },
      DEFAULT_LADDER,
      new Date(this.clock),
    );
    expect(created).toBe(true);
    expect(row.state).toBe("PENDING");
    this.tracked.push({ id: row.id, runId, kind: op.kind, slot: op.slot, requiredRole: op.role, lastState: "PENDING", runCanceled: false });
  }

  async state(id: string) {
    return (await this.db.humanRequest.findUniqueOrThrow({ where: { id }, select: { state: true } })).state as RequestState;
  }

  async auditCount(id: string) {
    return this.db.auditEntry.count({ where: { requestId: id } });
  }

  /** One decision; a refusal must be a HumanRequestError that changed nothing. */
  async decide(r: Tracked, decider: Decider, input: DecisionInput, broker = this.broker): Promise<boolean> {
    const before = await this.db.humanRequest.findUniqueOrThrow({ where: { id: r.id } });
    try {
      const view = await broker.decide(r.id, decider, input, "api");
      expect(roleAtLeast(decider.role, before.requiredRole as Role)).toBe(true);
      expect(view.decidedBy?.id).toBe(decider.id);
      r.decidedBy = decider.id;
      return true;
    } catch (err) {
      if (!(err instanceof HumanRequestError)) throw err;
      expect(err.message.length).toBeGreaterThan(10);
      return false;
    }
  }

  async refusalChangedNothing(r: Tracked, before: { state: string }, audits: number) {
    const after = await this.db.humanRequest.findUniqueOrThrow({ where: { id: r.id } });
    expect(after.state).toBe(before.state);
    expect(await this.auditCount(r.id)).toBe(audits);
  }

  async apply(op: Op) {
    switch (op.op) {
      case "create":
        return this.create(op);
      case "decide": {
        const r = this.pick(op.req);
        const input = inputOf(op.answer, r.kind);
        const before = await this.db.humanRequest.findUniqueOrThrow({ where: { id: r.id } });
        const audits = await this.auditCount(r.id);
        const expected = expectedTarget(r, op.role, input, before.state as RequestState);
        const ok = await this.decide(r, users[op.role], input);
        expect(ok, `${JSON.stringify(input)} by ${op.role} on a ${before.state} ${r.kind} (${r.slot}) request`).toBe(expected !== null);
        if (ok) expect(await this.state(r.id)).toBe(expected);
        else await this.refusalChangedNothing(r, before, audits);
        return;
      }
      case "race": {
        // Two people (admins, right answers) at once: exactly one wins if the request was open.
        const r = this.pick(op.req);
        const wasOpen = isOpen(await this.state(r.id));
        const [a, b] = [VALID[r.kind][op.a.pick], VALID[r.kind][op.b.pick]];
        const admin2 = { ...users.admin, name: "Second admin" };
        const results = await Promise.allSettled([
          this.broker.decide(r.id, users.admin, a, "inbox"),
          this.broker.decide(r.id, admin2, b, "link"),
        ]);
        const won = results.filter((x) => x.status === "fulfilled").length;
        expect(won).toBe(wasOpen ? 1 : 0);
        for (const x of results) {
          if (x.status === "rejected") {
            expect(x.reason).toBeInstanceOf(HumanRequestError);
            expect((x.reason as HumanRequestError).reason).toBe("CLOSED");
          }
        }
        if (won) r.decidedBy = users.admin.id;
        return;
      }
      case "advance":
        this.clock += op.ms;
        await this.broker.runDue();
        return;
      case "raceScheduler": {
        // A person and two schedulers at the same moment, the clock past the deadline. (One
        // connection: two Prisma clients in one process would wait on each other's locks
        // with the thread blocked; the compare-and-set is what is tested here.)
        const r = this.pick(op.req);
        const scheduler = this.makeBroker(this.db);
        this.clock += 24 * HOUR + 1000;
        const wasOpen = isOpen(await this.state(r.id));
        const [decided] = await Promise.allSettled([
          this.broker.decide(r.id, users.admin, VALID[r.kind][op.answer.pick], "inbox"),
          scheduler.runDue(),
          this.broker.runDue(),
        ]);
        if (decided.status === "fulfilled") {
          expect(wasOpen).toBe(true);
          r.decidedBy = users.admin.id;
        } else {
          expect(decided.reason).toBeInstanceOf(HumanRequestError);
        }
        return;
      }
      case "restart":
        return this.restart();
      case "crash": {
        // The process dies right after one transaction of the broker committed, before the run
        // was requeued; a new process takes over.
        this.runs.crashNext = true;
        if (op.via === "scheduler") {
          this.clock += op.ms;
          await this.broker.runDue(); // it logs the failure and goes on with the next request
        } else {
          const r = this.pick(op.req);
          const died = await this.broker.decide(r.id, users.admin, VALID[r.kind][op.variant], "inbox").then(
            () => false,
            (err: Error) => {
              if (err instanceof HumanRequestError) return false;
              expect(err.message).toBe("the process died here");
              return true;
            },
          );
          if (died) r.decidedBy = users.admin.id;
        }
        const crashed = !this.runs.crashNext;
        this.runs.crashNext = false;
        if (crashed) await this.restart();
        return;
      }
      case "cancelRun": {
        // The kernel ended the run first (canceled), then tells the broker.
        const r = this.pick(op.req);
        if (await this.runs.transition(r.runId, ["waiting_human", "queued"], "canceled")) r.runCanceled = true;
        const open = isOpen(await this.state(r.id));
        const n = await this.broker.cancelForRun(r.runId, "The run ended (canceled)");
        expect(n).toBe(open ? 1 : 0);
        return;
      }
    }
  }

  /** Everything that must hold after every step. */
  async check() {
    const ids = this.tracked.map((r) => r.id);
    const rows = new Map((await this.db.humanRequest.findMany({ where: { id: { in: ids } } })).map((r) => [r.id, r]));
    const audit = await this.db.auditEntry.findMany({
      where: { requestId: { in: ids }, kind: "request.transition" },
      orderBy: { id: "asc" },
    });
    for (const r of this.tracked) {
      const row = rows.get(r.id)!;
      const state = row.state as RequestState;
      const trail = audit.filter((a) => a.requestId === r.id);

      // The audit trail chains from PENDING to the current state, each step allowed for the kind.
      let at: RequestState = "PENDING";
      for (const a of trail) {
        expect(a.fromState).toBe(at);
        expect(canTransitionRequest(r.kind, at, a.toState as RequestState), `${r.kind} ${at} -> ${a.toState}`).toBe(true);
        if (a.fromState === "EXPIRED" && a.toState === "APPROVED") expect(r.kind).toBe("veto");
        at = a.toState as RequestState;
      }
      expect(at).toBe(state);

      // A closed request never reopens (a veto's EXPIRED goes on to APPROVED, nothing else).
      if (!isOpen(r.lastState) && state !== r.lastState) {
        expect([r.kind, r.lastState, state]).toEqual(["veto", "EXPIRED", "APPROVED"]);
      }
      r.lastState = state;

      // A person's decision is recorded with who and when; the scheduler's is the system's.
      const last = trail.at(-1);
      if (last && (state === "APPROVED" || state === "REJECTED")) {
        expect(row.decidedById).toBe(last.actorId);
        expect(row.decidedAt).not.toBeNull();
        if (last.actorId !== "system") {
          expect(row.decidedById).toBe(r.decidedBy);
          expect(row.decision).not.toBeNull();
          expect(row.channel).toBe(last.channel);
        } else {
          expect([r.kind, state]).toEqual(["veto", "APPROVED"]);
        }
      }
      // Open requests (and a veto on its way to APPROVED) have a time the scheduler looks at; closed ones none.
      const interim = r.kind === "veto" && state === "EXPIRED";
      expect(row.nextActionAt === null).toBe(!isOpen(state) && !interim);
      if (state === "ESCALATED") expect(row.level).toBeGreaterThanOrEqual(2);
      if (r.kind === "veto") expect(row.level).toBe(1);

      // Timeline: one human.decided per closed request, with the state it closed in.
      const decided = this.runs.events.filter(
        (x) => x.e.type === "human.decided" && (x.e.payload as { requestId: string }).requestId === r.id,
      );
      const closed = !isOpen(state) && !interim;
      expect(decided.length).toBeLessThanOrEqual(1);
      expect(decided.length).toBe(closed ? 1 : 0);
      if (decided[0]) expect(decided[0].e.payload).toMatchObject({ state, kind: r.kind });
      const escalations = this.runs.events.filter(
        (x) => x.e.type === "human.escalated" && (x.e.payload as { requestId: string }).requestId === r.id,
      );
      expect(escalations.length).toBe(trail.filter((a) => a.toState === "ESCALATED").length);

      // The waiting run goes back in the queue exactly once, when its request closed.
      const enqueued = this.runs.enqueued.filter((id) => id === r.runId).length;
      if (!closed) {
        expect(this.runs.status.get(r.runId)).toBe(r.runCanceled ? "canceled" : "waiting_human");
        expect(enqueued).toBe(0);
      } else if (!r.runCanceled) {
        expect(this.runs.status.get(r.runId)).toBe("queued");
        expect(enqueued).toBe(1);
      }
    }
  }

  async dispose() {
    await t.db.humanRequest.deleteMany({});
    await t.db.auditEntry.deleteMany({});
    for (const db of this.extraDbs) await db.$disconnect();
  }
}

describe("HitlBroker under random operations", () => {
  it("keeps every request's story consistent after every step", async () => {
    await fc.assert(
      fc.asyncProperty(sequenceArb, async ([creates, ops]) => {
        const world = new World();
        try {
          for (const c of creates) await world.apply(c);
          await world.check();
          for (const op of ops) {
            await world.apply(op);
            await world.check();
          }
          // In the end the ladder closes everything: nothing waits forever.
          world.clock += 30 * 24 * HOUR;
          await world.broker.runDue();
          await world.broker.runDue();
          await world.check();
          for (const r of world.tracked) expect(isOpen(r.lastState), `${r.kind} request left ${r.lastState}`).toBe(false);
        } finally {
          await world.dispose();
        }
      }),
      { numRuns: Number(process.env.PROP_RUNS ?? 60) },
    );
  });
});

describe("a veto whose deadline passed while the scheduler died half-way", () => {
  it("goes ahead after a restart: it neither stays EXPIRED nor lets the run go on before APPROVED", async () => {
    const world = new World();
    try {
      await world.apply({ op: "create", kind: "veto", slot: "policy", role: "approver", ttl: 120 });
      const [r] = world.tracked;
      world.clock += 121_000;
      // The process dies right after the PENDING -> EXPIRED transaction committed.
      world.crashOnChange = (state) => state === "EXPIRED";
      await world.broker.runDue();
      world.crashOnChange = null;
      expect(await world.state(r.id)).toBe("EXPIRED");
      expect(world.runs.status.get(r.runId)).toBe("waiting_human");

      await world.restart(); // reconcile() leaves the run waiting: its veto is not settled yet
      expect(world.runs.status.get(r.runId)).toBe("waiting_human");
      expect(await world.broker.runDue()).toBe(1);
      expect(await world.state(r.id)).toBe("APPROVED");
      await world.check();
      const trail = await world.db.auditEntry.findMany({ where: { requestId: r.id, kind: "request.transition" }, orderBy: { id: "asc" } });
      expect(trail.map((a) => `${a.fromState}>${a.toState}`)).toEqual(["PENDING>EXPIRED", "EXPIRED>APPROVED"]);
      expect(world.runs.status.get(r.runId)).toBe("queued");
      expect(world.runs.enqueued).toEqual([r.runId]);
    } finally {
      await world.dispose();
    }
  });
});
