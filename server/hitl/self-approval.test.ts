// A request marked notByRequester (a change an agent wrote for someone) cannot
// be decided by the person who launched the run: another approver must, on
// every channel, since they all go through the broker.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser, loadActor } from "@/server/identity";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { DEFAULT_LADDER, HumanRequestError, createRequest, getForActor, listForActor } from "./index";

let tk: TestKernel;

beforeAll(async () => {
  tk = await createTestKernel({ hitl: true });
  await tk.t.db.run.create({
    data: {
      id: "self-approval-run",
      goal: "fix the test",
      agentName: "demo-coder",
      agentVersion: 1,
      model: "scripted/demo-coder",
      createdById: tk.actors.approver.userId,
      status: "succeeded",
    },
  });
}, 60_000);

afterAll(async () => {
  await tk?.cleanup();
});

const decider = (a: NonNullable<Awaited<ReturnType<typeof loadActor>>>) => ({
  id: a.userId,
  name: a.name,
  role: a.role,
  teamIds: a.teamIds,
  teamRoles: a.teamRoles,
});

async function request(requestedById: string, notByRequester: boolean, node: string, teamId: string | null = null) {
  const { row } = await createRequest(
    tk.t.db,
    {
      runId: "self-approval-run",
      nodeId: node,
      checkpointId: "",
      slot: "policy",
      kind: "approve",
      title: "Merge the change?",
      payload: { tool: "merge_change", notByRequester },
      requiredRole: "approver",
      teamId,
      requestedById,
    },
    DEFAULT_LADDER,
    new Date(),
  );
  return row;
}

describe("a request its requester may not decide", () => {
  it("refuses the requester, whatever their role, and lets another approver decide", async () => {
    const author = tk.actors.approver;
    const row = await request(author.userId, true, "n1");
    const err = await tk.hitl!.broker.decide(row.id, decider(author), { decision: "approve" }, "inbox").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HumanRequestError);
    expect(err).toMatchObject({ code: "FORBIDDEN", message: expect.stringMatching(/another person/) });
    const adminErr = await tk
      .hitl!.broker.decide((await request(tk.actors.admin.userId, true, "n2")).id, decider(tk.actors.admin), { decision: "approve" }, "api")
      .catch((e: unknown) => e);
    expect(adminErr).toMatchObject({ code: "FORBIDDEN" });
    const otherId = await createUser(tk.t.db, { email: "second-approver@test.local", password: "test-password-1", role: "approver" });
    const other = (await loadActor(tk.t.db, otherId))!;
    const view = await tk.hitl!.broker.decide(row.id, decider(other), { decision: "approve" }, "inbox");
    expect(view.state).toBe("APPROVED");
  });

  it("leaves ordinary requests to their requester when they have the role", async () => {
    const row = await request(tk.actors.approver.userId, false, "n3");
    expect((await tk.hitl!.broker.decide(row.id, decider(tk.actors.approver), { decision: "approve" }, "inbox")).state).toBe("APPROVED");
  });

  it("the Inbox and its badge show it as someone else's to decide, with why; another approver sees it as theirs", async () => {
    const author = tk.actors.approver;
    const otherId = await createUser(tk.t.db, { email: "third-approver@test.local", password: "test-password-1", role: "approver" });
    const other = (await loadActor(tk.t.db, otherId))!;
    const broker = tk.hitl!.broker;
    const before = { author: await broker.openCount(decider(author)), other: await broker.openCount(decider(other)) };
    const row = await request(author.userId, true, "n4", author.teamIds[0]);
    expect(await broker.openCount(decider(author))).toBe(before.author);
    expect(await broker.openCount(decider(other))).toBe(before.other + 1);

    const mine = await getForActor(broker, author, row.id);
    expect(mine.you).toEqual({ mayDecide: false, whyNot: expect.stringMatching(/You launched the run that asks this; another person/) });
    const listed = (await listForActor(broker, author, { state: ["PENDING"], limit: 200 })).items.find((r) => r.id === row.id);
    expect(listed?.you.mayDecide).toBe(false);
    expect((await getForActor(broker, other, row.id)).you).toEqual({ mayDecide: true, whyNot: null });
    // A role too low says so in the same words the refusal would use.
    expect((await getForActor(broker, tk.actors.viewer, row.id)).you).toEqual({
      mayDecide: false,
      whyNot: "Deciding this request needs the approver role; you are viewer in this run's team",
    });
    // Closed: nobody's to decide, and no reason to give.
    await broker.decide(row.id, decider(other), { decision: "approve" }, "inbox");
    expect((await getForActor(broker, other, row.id)).you).toEqual({ mayDecide: false, whyNot: null });
  });
});
