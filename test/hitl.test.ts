// Human in the loop end to end through the kernel: policy asks, the run waits
// in waiting_human, a person decides, the run goes on; the decided call runs
// exactly once and a rejected one never runs
// (docs/human-requests-and-policy.md#reference-human-requests). The human
// requests' contract: every case on SQLite and on PostgreSQL.
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { compareRuns, createRun, type RunState } from "@/server/kernel";
import { savePolicy } from "@/server/policy";
import { HumanRequestError, createResumeLink, decideWithLink } from "@/server/hitl";
import { TEST_DATABASES } from "./helpers/databases";
import { createTestKernel, type TestKernel } from "./helpers/kernel";
import { waitFor } from "./helpers/wait";

describe.each(TEST_DATABASES)("human requests on $name", (db) => {
  let tk: TestKernel;

  beforeEach(async () => {
    tk = await createTestKernel({ hitl: true, database: db.dialect });
  });
  afterEach(async () => {
    await tk.cleanup();
  });

  async function launch(agent: string, goal = "Ship it") {
    const run = await createRun(tk.kernel, { goal, agent }, tk.actors.operator);
    return run.id;
  }

  async function statusOf(runId: string): Promise<RunState> {
    return (await tk.t.db.run.findUniqueOrThrow({ where: { id: runId }, select: { status: true } })).status as RunState;
  }

  async function waitingRequest(runId: string) {
    await waitFor(async () => (await statusOf(runId)) === "waiting_human", `run ${runId} to wait for a person`);
    const rows = await tk.t.db.humanRequest.findMany({ where: { runId, state: { in: ["PENDING", "ESCALATED"] } } });
    expect(rows).toHaveLength(1);
    return rows[0];
  }

  const approver = () => ({ id: tk.actors.approver.userId, name: tk.actors.approver.name, role: tk.actors.approver.role });
  const deployLog = (runId: string) => path.join(tk.t.dir, "workspaces", runId, "out", "deploy.log");

  async function types(runId: string) {
    return (await tk.kernel.store.listEvents(runId, 0, 10_000)).map((e) => e.type);
  }

  describe("approve requests from the policy", () => {
    it("stops a risky command until a person approves; then it runs exactly once", async () => {
      const runId = await launch("demo-deploy");
      const request = await waitingRequest(runId);
      expect(request.kind).toBe("approve");
      expect(request.title).toContain("./deploy.sh production");
      expect(request.requiredRole).toBe("approver");
      expect(fs.existsSync(deployLog(runId))).toBe(false);

      await tk.hitl!.broker.decide(request.id, approver(), { decision: "approve", comment: "go" }, "inbox");
      expect(await tk.settle(runId)).toBe("succeeded");
      const lines = fs.readFileSync(deployLog(runId), "utf8").trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/to production$/);

      const events = await tk.kernel.store.listEvents(runId, 0, 10_000);
      const decided = events.find((e) => e.type === "human.decided")!;
      expect(decided.payload).toMatchObject({
        state: "APPROVED",
        decision: "approve",
        byName: tk.actors.approver.name,
        channel: "inbox",
        comment: "go",
      });
      const result = events.filter((e) => e.type === "tool.result").at(-1)!;
      expect(result.payload).toMatchObject({ ok: true, gate: { requestId: request.id, policy: { effect: "ask" } } });
      // The log, REST and the CLI give them in the order they happened: the call, the question, the decision, the result.
      const gated = (result.payload as { toolCallId: string }).toolCallId;
      const ofCall = events.filter(
        (e) =>
          (e.payload as { toolCallId?: string }).toolCallId === gated || (e.payload as { requestId?: string }).requestId === request.id,
      );
      expect(ofCall.map((e) => e.type)).toEqual(["tool.call", "human.requested", "human.decided", "tool.result"]);
      // Compare says so on the call.
      const compared = await compareRuns(tk.kernel, tk.actors.operator, { a: runId, b: runId });
      const deploy = compared.rows.flatMap((r) => r.a?.toolCalls ?? []).find((c) => c.asked);
      expect(deploy).toMatchObject({ tool: "shell", ok: true, asked: { state: "APPROVED", byName: tk.actors.approver.name } });
      const audit = await tk.t.db.auditEntry.findMany({ where: { requestId: request.id }, orderBy: { id: "asc" } });
      expect(audit.map((a) => `${a.fromState ?? ""}>${a.toState}`)).toEqual([">PENDING", "PENDING>APPROVED"]);
      expect(audit[1]).toMatchObject({ actorId: tk.actors.approver.userId, onBehalfOf: tk.actors.operator.userId, channel: "inbox" });
    });

    it("never runs a rejected call, and the run says who rejected it and why", async () => {
      const runId = await launch("demo-deploy");
      const request = await waitingRequest(runId);
      await tk.hitl!.broker.decide(request.id, approver(), { decision: "reject", comment: "not on a Friday" }, "api");
      // A person's decision, not a fault: canceled, saying who and why, no internal code in front.
      expect(await tk.settle(runId)).toBe("canceled");
      expect(fs.existsSync(deployLog(runId))).toBe(false);
      const run = await tk.t.db.run.findUniqueOrThrow({ where: { id: runId } });
      const said = `Stopped by a reviewer — ${tk.actors.approver.name}: not on a Friday`;
      expect(run.statusReason).toBe(said);
      expect(run).toMatchObject({ errorCode: "STOPPED_BY_REVIEWER", errorMessage: said });
      const events = await tk.kernel.store.listEvents(runId, 0, 10_000);
      const result = events.filter((e) => e.type === "tool.result").at(-1)!;
      expect(result.payload).toMatchObject({
        ok: false,
        error: { code: "REJECTED_BY_HUMAN", reviewer: { by: tk.actors.approver.name, verb: "rejected", comment: "not on a Friday" } },
      });
      expect(events.filter((e) => e.type === "run.state").at(-1)!.payload).toMatchObject({
        to: "canceled",
        reason: said,
        error: { code: "STOPPED_BY_REVIEWER" },
      });
    });

    it("runs the edited arguments a person approved", async () => {
      const runId = await launch("demo-deploy");
      const request = await waitingRequest(runId);
      await expect(
        tk.hitl!.broker.decide(request.id, approver(), { decision: "approve", editedArguments: { command: 42 } }, "inbox"),
      ).rejects.toThrow(/edited arguments are not valid/);
      await tk.hitl!.broker.decide(
        request.id,
        approver(),
        { decision: "approve", editedArguments: { command: "./deploy.sh staging" } },
        "inbox",
      );
      expect(await tk.settle(runId)).toBe("succeeded");
      expect(fs.readFileSync(deployLog(runId), "utf8")).toMatch(/to staging\n$/);
      // The log says what ran: the run page shows it on the call's card, the agent's own command struck through.
      const events = await tk.kernel.store.listEvents(runId, 0, 10_000);
      const call = events.filter((e) => e.type === "tool.call").at(-1)!;
      const result = events.find(
        (e) =>
          e.type === "tool.result" &&
          (e.payload as { toolCallId: string }).toolCallId === (call.payload as { toolCallId: string }).toolCallId,
      )!;
      expect(call.payload).toMatchObject({ args: { command: "./deploy.sh production" } });
      expect(result.payload).toMatchObject({ ok: true, gate: { requestId: request.id, args: { command: "./deploy.sh staging" } } });
    });

    it("refuses a second decision, the wrong role and an answer of the wrong kind, each clearly", async () => {
      const runId = await launch("demo-deploy");
      const request = await waitingRequest(runId);
      const operator = { id: tk.actors.operator.userId, name: "Op", role: "operator" as const };
      await expect(tk.hitl!.broker.decide(request.id, operator, { decision: "approve" }, "inbox")).rejects.toThrow(
        "needs the approver role; you are operator",
      );
      await expect(tk.hitl!.broker.decide(request.id, approver(), { decision: "choose", optionId: "x" }, "inbox")).rejects.toThrow(
        "An approve request is answered with approve or reject, not choose",
      );
      await expect(tk.hitl!.broker.decide("nope", approver(), { decision: "approve" }, "inbox")).rejects.toThrow(
        "There is no human request nope",
      );
      await tk.hitl!.broker.decide(request.id, approver(), { decision: "approve" }, "inbox");
      const second = tk.hitl!.broker.decide(request.id, { ...approver(), role: "admin" }, { decision: "reject" }, "inbox");
      await expect(second).rejects.toBeInstanceOf(HumanRequestError);
      await expect(second).rejects.toThrow(/already closed: APPROVED by/);
      expect(await tk.settle(runId)).toBe("succeeded");
    });

    it("cancels the open request when the waiting run is canceled", async () => {
      const runId = await launch("demo-deploy");
      const request = await waitingRequest(runId);
      const res = await tk.kernel.pool.cancel(runId, { id: tk.actors.operator.userId, name: "Op" });
      expect(res.ok).toBe(true);
      await waitFor(
        async () => (await tk.t.db.humanRequest.findUniqueOrThrow({ where: { id: request.id } })).state === "CANCELED",
        "the request to be canceled",
      );
      await expect(tk.hitl!.broker.decide(request.id, approver(), { decision: "approve" }, "inbox")).rejects.toThrow(
        /already closed: CANCELED/,
      );
      expect(fs.existsSync(deployLog(runId))).toBe(false);
    });

    it("a cancel that arrives as the run stops to wait for a person cancels it and its request", async () => {
      // The run is waiting_human in the database while its loop is still finishing the step: a cancel
      // then must not only stop the loop, it must end the run where the loop left it.
      const store = tk.kernel.store;
      const transition = store.transition.bind(store);
      // The loop finishes its step only once the cancel has been asked for (it is still executing then).
      const humans = tk.kernel.deps.humans!;
      const afterWaiting = humans.afterWaiting.bind(humans);
      humans.afterWaiting = async (...args: Parameters<typeof humans.afterWaiting>) => {
        await waitFor(
          async () => (await tk.t.db.runEvent.count({ where: { runId: args[0], type: "run.control" } })) > 0,
          "the cancel to be asked for",
        );
        return afterWaiting(...args);
      };
      let canceled: ReturnType<typeof tk.kernel.pool.cancel> | null = null;
      store.transition = async (...args: Parameters<typeof store.transition>) => {
        const moved = await transition(...args);
        if (moved && args[2] === "waiting_human" && !canceled)
          canceled = tk.kernel.pool.cancel(args[0], { id: tk.actors.operator.userId, name: "Op" });
        return moved;
      };
      const runId = await launch("demo-deploy");
      await waitFor(async () => canceled, "the cancel as the run stops to wait");
      expect(await canceled!).toEqual({ ok: true });
      expect(await statusOf(runId)).toBe("canceled");
      await waitFor(
        async () => (await tk.t.db.humanRequest.findFirstOrThrow({ where: { runId } })).state === "CANCELED",
        "the request to be canceled",
      );
      expect(fs.existsSync(deployLog(runId))).toBe(false);
    });

    it("denies by policy without asking anyone", async () => {
      await savePolicy(tk.t.db, {
        source: `rules:\n  - actor: ${tk.actors.operator.email}\n    tool: shell\n    decision: deny\n  - tool: "*"\n    decision: allow\n`,
        comment: "no shell for the operator",
        actor: { id: tk.actors.admin.userId, name: "Admin" },
      });
      tk.hitl!.policy.invalidate();
      const runId = await launch("demo-deploy");
      expect(await tk.settle(runId)).toBe("failed");
      const result = (await tk.kernel.store.listEvents(runId, 0, 10_000)).find(
        (e) => e.type === "tool.result" && (e.payload as { tool?: string }).tool === "shell",
      )!;
      expect(result.payload).toMatchObject({
        ok: false,
        error: { code: "POLICY_DENIED" },
        gate: { policy: { effect: "deny", level: "actor" } },
      });
      expect(await tk.t.db.humanRequest.count()).toBe(0);
      expect(await tk.t.db.auditEntry.count({ where: { kind: "policy.decision", runId, toState: "deny" } })).toBe(1);
      // The audit row's rule number is the one its reason names (the first rule, not "rule 0").
      const row = await tk.t.db.auditEntry.findFirstOrThrow({ where: { kind: "policy.decision", runId, toState: "deny" } });
      const detail = JSON.parse(row.detail) as { rule: number; reason: string };
      expect(detail.reason).toMatch(/^rule 1 /);
      expect(detail.rule).toBe(1);
    });
  });

  describe("the TTL ladder", () => {
    it("escalates after level 1, tells admins after level 2, and expires at the hard cap; the call never runs", async () => {
      const runId = await launch("demo-deploy");
      const request = await waitingRequest(runId);
      const { broker, clock } = tk.hitl!;
      expect(await broker.runDue()).toBe(0);
      clock.advance(24 * 3600_000 + 1000);
      expect(await broker.runDue()).toBe(1);
      expect(await tk.t.db.humanRequest.findUniqueOrThrow({ where: { id: request.id } })).toMatchObject({ state: "ESCALATED", level: 2 });
      clock.advance(48 * 3600_000 + 1000);
      expect(await broker.runDue()).toBe(1);
      expect(await tk.t.db.auditEntry.count({ where: { requestId: request.id, kind: "request.notify_admin" } })).toBe(1);
      expect(await broker.runDue()).toBe(0);
      // An escalated request can still be answered... but not after the hard cap.
      clock.advance(4 * 24 * 3600_000);
      expect(await broker.runDue()).toBe(1);
      expect((await tk.t.db.humanRequest.findUniqueOrThrow({ where: { id: request.id } })).state).toBe("EXPIRED");
      expect(await tk.settle(runId)).toBe("failed");
      expect(fs.existsSync(deployLog(runId))).toBe(false);
      expect(await types(runId)).toContain("human.escalated");
    });
  });

  describe("ask_human and veto (demo-release)", () => {
    it("asks to choose, to provide a value matching the schema, and publishes when nobody vetoes in time", async () => {
      const runId = await launch("demo-release");
      const { broker, clock } = tk.hitl!;
      const operator = { id: tk.actors.operator.userId, name: tk.actors.operator.name, role: tk.actors.operator.role };

      const choose = await waitingRequest(runId);
      expect(choose.kind).toBe("choose");
      await expect(broker.decide(choose.id, operator, { decision: "choose", optionId: "nope" }, "inbox")).rejects.toThrow(
        '"nope" is not one of the options (short, detailed, playful)',
      );
      await broker.decide(choose.id, operator, { decision: "choose", optionId: "detailed" }, "inbox");

      const provide = await waitFor(async () => {
        const r = await tk.t.db.humanRequest.findFirst({ where: { runId, kind: "provide", state: "PENDING" } });
        return r && (await statusOf(runId)) === "waiting_human" ? r : null;
      }, "the provide request");
      await expect(broker.decide(provide.id, operator, { decision: "provide", value: { capPercent: 80 } }, "inbox")).rejects.toThrow(
        /capPercent: Too big/,
      );
      await broker.decide(provide.id, operator, { decision: "provide", value: { capPercent: 15 } }, "inbox");

      const veto = await waitFor(async () => {
        const r = await tk.t.db.humanRequest.findFirst({ where: { runId, kind: "veto", state: "PENDING" } });
        return r && (await statusOf(runId)) === "waiting_human" ? r : null;
      }, "the veto request");
      expect(veto.expiresAt.getTime() - veto.createdAt.getTime()).toBe(120_000);
      expect(await broker.runDue()).toBe(0);
      clock.advance(121_000);
      expect(await broker.runDue()).toBe(1);
      expect(await tk.settle(runId)).toBe("succeeded");
      expect((await tk.t.db.humanRequest.findUniqueOrThrow({ where: { id: veto.id } })).state).toBe("APPROVED");
      const audit = await tk.t.db.auditEntry.findMany({ where: { requestId: veto.id }, orderBy: { id: "asc" } });
      expect(audit.map((a) => a.toState)).toEqual(["PENDING", "EXPIRED", "APPROVED"]);

      const results = (await tk.kernel.store.listEvents(runId, 0, 10_000)).filter(
        (e) => e.type === "tool.result" && (e.payload as { tool?: string }).tool === "ask_human",
      );
      expect(results.map((r) => (r.payload as { output?: unknown }).output)).toMatchObject([
        { optionId: "detailed", label: "Detailed" },
        { value: { capPercent: 15 } },
      ]);
      expect(fs.existsSync(path.join(tk.t.dir, "workspaces", runId, "out", "published.md"))).toBe(true);
    });

    it("a person who declines to answer stops the run: stopped by a reviewer, with who and why", async () => {
      const runId = await launch("demo-release");
      const operator = { id: tk.actors.operator.userId, name: tk.actors.operator.name, role: tk.actors.operator.role };
      await tk.hitl!.broker.decide(
        (await waitingRequest(runId)).id,
        operator,
        { decision: "reject", comment: "no release this week" },
        "inbox",
      );
      expect(await tk.settle(runId)).toBe("canceled");
      const run = await tk.t.db.run.findUniqueOrThrow({ where: { id: runId } });
      expect(run).toMatchObject({
        statusReason: `Stopped by a reviewer — ${operator.name}: no release this week`,
        errorCode: "STOPPED_BY_REVIEWER",
      });
      const result = (await tk.kernel.store.listEvents(runId, 0, 10_000)).filter((e) => e.type === "tool.result").at(-1)!;
      expect(result.payload).toMatchObject({
        ok: false,
        error: { code: "DECLINED_BY_HUMAN", reviewer: { by: operator.name, verb: "declined", comment: "no release this week" } },
      });
      expect(fs.existsSync(path.join(tk.t.dir, "workspaces", runId, "out", "published.md"))).toBe(false);
    });

    it("does not publish when someone vetoes", async () => {
      const runId = await launch("demo-release");
      const { broker } = tk.hitl!;
      const operator = { id: tk.actors.operator.userId, name: tk.actors.operator.name, role: tk.actors.operator.role };
      await broker.decide((await waitingRequest(runId)).id, operator, { decision: "choose", optionId: "short" }, "inbox");
      await waitFor(
        async () =>
          (await tk.t.db.humanRequest.count({ where: { runId, kind: "provide", state: "PENDING" } })) === 1 &&
          (await statusOf(runId)) === "waiting_human",
        "provide",
      );
      const provide = (await tk.t.db.humanRequest.findFirstOrThrow({ where: { runId, kind: "provide" } })).id;
      await broker.decide(provide, operator, { decision: "provide", value: { capPercent: 5 } }, "inbox");
      await waitFor(
        async () =>
          (await tk.t.db.humanRequest.count({ where: { runId, kind: "veto", state: "PENDING" } })) === 1 &&
          (await statusOf(runId)) === "waiting_human",
        "veto",
      );
      const veto = (await tk.t.db.humanRequest.findFirstOrThrow({ where: { runId, kind: "veto" } })).id;
      await broker.decide(veto, approver(), { decision: "veto", comment: "wait for legal" }, "inbox");
      // Stopped by the person who vetoed, with their reason: not a failure.
      expect(await tk.settle(runId)).toBe("canceled");
      const run = await tk.t.db.run.findUniqueOrThrow({ where: { id: runId } });
      expect(run.statusReason).toBe(`Stopped by a reviewer — ${tk.actors.approver.name}: wait for legal`);
      expect(fs.existsSync(path.join(tk.t.dir, "workspaces", runId, "out", "published.md"))).toBe(false);
    });
  });

  describe("signed links", () => {
    it("a wrong answer through a link is refused without using the link up; the right one decides once", async () => {
      const runId = await launch("demo-release");
      const request = await waitingRequest(runId);
      const { broker, links } = tk.hitl!;
      const operator = { id: tk.actors.operator.userId, name: tk.actors.operator.name, role: tk.actors.operator.role };
      const { token } = await createResumeLink(links, request.id, approver());
      const deps = { ...links, decide: broker.decide.bind(broker), check: broker.checkDecision.bind(broker) };
      await expect(decideWithLink(deps, token, operator, { decision: "choose", optionId: "nope" })).rejects.toThrow(
        /"nope" is not one of the options/,
      );
      expect(await tk.t.db.resumeToken.count({ where: { consumedAt: { not: null } } })).toBe(0);
      const decided = await decideWithLink(deps, token, operator, { decision: "choose", optionId: "short" });
      expect(decided).toMatchObject({ state: "APPROVED", channel: "link" });
      await expect(decideWithLink(deps, token, operator, { decision: "choose", optionId: "short" })).rejects.toThrow(
        "This link has already been used",
      );
    });
  });

  describe("the doom-loop guard", () => {
    const LOOPING = {
      turns: [
        ...Array.from({ length: 5 }, () => ({
          text: "Checking again.",
          toolCalls: [{ tool: "shell", args: { command: "echo tick >> ticks.log" } }],
        })),
        { text: "Done." },
      ],
    };
    const ticks = (runId: string) => {
      const file = path.join(tk.t.dir, "workspaces", runId, "ticks.log");
      return fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim().split("\n").length : 0;
    };

    it("pauses the fourth identical call in a row for a person; skipping tells the agent and never runs it", async () => {
      const run = await createRun(tk.kernel, { goal: "Loop", agent: "demo-coder", scenario: LOOPING }, tk.actors.operator);
      const request = await waitingRequest(run.id);
      expect(request).toMatchObject({ kind: "choose", slot: "loop", requiredRole: "operator" });
      expect(request.title).toBe("shell ran 4 times in a row with the same arguments");
      expect(ticks(run.id)).toBe(3);
      const operator = { id: tk.actors.operator.userId, name: tk.actors.operator.name, role: tk.actors.operator.role };
      await tk.hitl!.broker.decide(request.id, operator, { decision: "choose", optionId: "skip" }, "inbox");
      expect(await tk.settle(run.id)).toBe("succeeded");
      // The fifth identical call is not a multiple of four: the guard lets it run (it asks again at the eighth).
      const results = (await tk.kernel.store.listEvents(run.id, 0, 10_000))
        .filter((e) => e.type === "tool.result")
        .map((e) => (e.payload as { ok: boolean; error?: { code: string } }).error?.code ?? "ok");
      expect(results).toEqual(["ok", "ok", "ok", "LOOP_SKIPPED", "ok"]);
      expect(ticks(run.id)).toBe(4);
    });

    it("pauses after five steps in a row in which every tool call failed", async () => {
      const failing = {
        turns: [
          ...Array.from({ length: 6 }, (_, i) => ({
            text: "Reading.",
            toolCalls: [{ tool: "read_file", args: { path: `missing-${i}.txt` } }],
          })),
          { text: "Done." },
        ],
      };
      const run = await createRun(tk.kernel, { goal: "Stuck", agent: "demo-coder", scenario: failing }, tk.actors.operator);
      const request = await waitingRequest(run.id);
      expect(request).toMatchObject({ kind: "choose", slot: "loop" });
      expect(request.title).toBe("No progress for 5 steps: every tool call failed");
      const operator = { id: tk.actors.operator.userId, name: tk.actors.operator.name, role: tk.actors.operator.role };
      await tk.hitl!.broker.decide(request.id, operator, { decision: "choose", optionId: "continue" }, "inbox");
      expect(await tk.settle(run.id)).toBe("succeeded");
      const results = (await tk.kernel.store.listEvents(run.id, 0, 10_000)).filter((e) => e.type === "tool.result");
      expect(results).toHaveLength(6);
    });

    it("stopping cancels the run", async () => {
      const run = await createRun(tk.kernel, { goal: "Loop", agent: "demo-coder", scenario: LOOPING }, tk.actors.operator);
      const request = await waitingRequest(run.id);
      const operator = { id: tk.actors.operator.userId, name: tk.actors.operator.name, role: tk.actors.operator.role };
      await tk.hitl!.broker.decide(request.id, operator, { decision: "choose", optionId: "stop" }, "inbox");
      expect(await tk.settle(run.id)).toBe("canceled");
      expect(ticks(run.id)).toBe(3);
      const row = await tk.t.db.run.findUniqueOrThrow({ where: { id: run.id } });
      expect(row.statusReason).toMatch(/stopped the run: shell repeated 4 times/);
    });
  });
});
