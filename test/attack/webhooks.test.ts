// Attack suite, issue class 28: what a webhook carries out of Rein. A secret
// that ends up in a run's events (an agent echoing it into a failure or a
// request's title) never reaches a webhook payload, the outbox or the
// delivery log; an endpoint limited to one team never receives another
// team's runs, neither as they happen nor through Recover; and nobody but an
// admin lists, adds, reads the deliveries of, resends or recovers webhooks.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChannelDispatcher, Webhooks } from "@/server/channels";
import { createApiToken } from "@/server/identity";
import { putSecret } from "@/server/secrets";
import { createTestKernel, type TestKernel } from "../helpers/kernel";
import { startRestServer, type RestTestServer } from "../helpers/rest";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";
import { testServices } from "@/test/helpers/services";

const VALUE = "whk-9Pq2zX7vLm4K-s3cr3t-0077";

let tk: TestKernel;
let webhooks: Webhooks;
let dispatcher: ChannelDispatcher;
let receiver: WebhookReceiver;
let rest: RestTestServer;

beforeAll(async () => {
  tk = await createTestKernel({ secrets: true });
  await putSecret(tk.t.db, tk.keyring!, { name: "DEPLOY_TOKEN", value: VALUE, actor: tk.users.admin });
  // The run below was given the secret: from its launch the kernel knows the value and redacts it from every event.
  await tk.kernel.secrets!.refresh(["DEPLOY_TOKEN"]);
  webhooks = new Webhooks({ db: tk.t.db, keyring: tk.keyring! });
  dispatcher = new ChannelDispatcher({ db: tk.t.db, webhooks });
  receiver = await startWebhookReceiver();
  await webhooks.setAllowHosts(tk.actors.admin, [new URL(receiver.url).host]);
  rest = await startRestServer(testServices(tk, { webhooks }));
}, 60_000);

afterAll(async () => {
  await rest?.close();
  await receiver?.close();
  await tk?.cleanup();
});

async function newRun(teamId: string | null) {
  return (
    await tk.t.db.run.create({
      data: { goal: "Deploy", agentName: "demo-coder", agentVersion: 1, createdById: tk.users.operator, model: "scripted", teamId },
    })
  ).id;
}

describe("a secret in a run's events", () => {
  it("never reaches a webhook payload, the outbox or the delivery log", async () => {
    const { endpoint, secret } = await webhooks.create(tk.actors.admin, { url: receiver.url, eventTypes: ["*"] });
    receiver.useSecret(secret);
    const runId = await newRun(null);
    // Through the kernel's store, as every event is written: the agent put the value in what it reports.
    await tk.kernel.store.transition(runId, ["queued"], "running");
    await tk.kernel.store.appendEvents(runId, [
      {
        type: "human.requested",
        payload: {
          requestId: "r-leak",
          kind: "approve",
          title: `Use ${VALUE} to deploy?`,
          requiredRole: "approver",
          expiresAt: new Date().toISOString(),
          tool: "shell",
          toolCallId: "c1",
        },
      },
    ]);
    await tk.kernel.store.transition(runId, ["running"], "failed", {
      reason: `token ${VALUE} refused`,
      error: { code: "TOOL_FAILED", message: `deploy with ${VALUE} failed` },
    });
    await dispatcher.tick();
    // running, the request, failed: three messages, three deliveries.
    expect(receiver.received).toHaveLength(3);
    expect(receiver.received.every((r) => r.verified)).toBe(true);
    const everything = JSON.stringify([
      receiver.received.map((r) => r.body),
      await tk.t.db.outboxMessage.findMany(),
      await tk.t.db.webhookDelivery.findMany(),
      await tk.t.db.webhookAttempt.findMany(),
      (await webhooks.deliveries(tk.actors.admin, endpoint.id)).deliveries,
    ]);
    expect(everything).not.toContain(VALUE);
    expect(receiver.received.some((r) => r.body.includes("deploy with") && r.body.includes("failed"))).toBe(true);
    await webhooks.remove(tk.actors.admin, endpoint.id);
  });
});

describe("an endpoint limited to one team", () => {
  it("never receives another team's runs, as they happen or through Recover", async () => {
    const mine = tk.actors.operator.teamIds[0];
    const other = (await tk.t.db.team.create({ data: { name: "other-team" } })).id;
    const since = new Date(Date.now() - 1_000);
    const { endpoint, secret } = await webhooks.create(tk.actors.admin, { url: receiver.url, eventTypes: ["*"], teamId: mine });
    receiver.useSecret(secret);
    receiver.received.length = 0;
    const theirs = await newRun(other);
    const ours = await newRun(mine);
    await tk.kernel.store.transition(theirs, ["queued"], "running");
    await tk.kernel.store.transition(ours, ["queued"], "running");
    await dispatcher.tick();
    expect(
      receiver.received.map((r) => JSON.parse(r.body).data.runId),
      JSON.stringify({ mine, other, ours, theirs, bodies: receiver.received.map((r) => r.body) }),
    ).toEqual([ours]);
    await webhooks.recover(tk.actors.admin, endpoint.id, since);
    await dispatcher.tick();
    expect(receiver.received.map((r) => JSON.parse(r.body).data.runId)).not.toContain(theirs);
    await webhooks.remove(tk.actors.admin, endpoint.id);
  });
});

describe("webhooks over REST", () => {
  it("refuse everyone but an admin, and change nothing", async () => {
    const { endpoint } = await webhooks.create(tk.actors.admin, { url: receiver.url, eventTypes: ["run.state_changed"] });
    await webhooks.test(tk.actors.admin, endpoint.id);
    const [delivery] = (await webhooks.deliveries(tk.actors.admin, endpoint.id)).deliveries;
    const before = {
      endpoints: await tk.t.db.webhookEndpoint.count(),
      attempts: await tk.t.db.webhookAttempt.count(),
      hosts: await webhooks.allowHosts(),
    };
    for (const role of ["viewer", "operator", "approver"] as const) {
      const token = (await createApiToken(tk.t.db, { userId: tk.users[role], name: `attack-${role}` })).token;
      const tries: Array<[string, string, unknown?]> = [
        ["GET", "/api/v1/webhooks"],
        ["POST", "/api/v1/webhooks", { url: receiver.url, eventTypes: ["*"] }],
        ["GET", `/api/v1/webhooks/${endpoint.id}`],
        ["PATCH", `/api/v1/webhooks/${endpoint.id}`, { url: "https://attacker.example/x" }],
        ["GET", `/api/v1/webhooks/${endpoint.id}/deliveries`],
        ["GET", `/api/v1/webhooks/deliveries/${delivery.id}`],
        ["POST", `/api/v1/webhooks/deliveries/${delivery.id}/resend`],
        ["POST", `/api/v1/webhooks/${endpoint.id}/rotate`],
        ["POST", `/api/v1/webhooks/${endpoint.id}/recover`, { since: new Date(Date.now() - 3600_000).toISOString() }],
        ["PUT", "/api/v1/webhooks/allowed-hosts", { hosts: ["169.254.169.254"] }],
        ["DELETE", `/api/v1/webhooks/${endpoint.id}`],
      ];
      for (const [method, path, body] of tries) {
        const res = await rest.call(token, method, path, body);
        expect(res.status, `${role} ${method} ${path}`).toBe(403);
        expect(res.text).not.toMatch(/whsec_/);
      }
    }
    expect({
      endpoints: await tk.t.db.webhookEndpoint.count(),
      attempts: await tk.t.db.webhookAttempt.count(),
      hosts: await webhooks.allowHosts(),
    }).toEqual(before);
    expect((await webhooks.get(tk.actors.admin, endpoint.id)).url).toBe(receiver.url);
  });
});
