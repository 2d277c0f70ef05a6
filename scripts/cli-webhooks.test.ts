// The webhooks commands of the CLI against REST v1 on a real HTTP server and
// a receiver written from the Standard Webhooks spec: add prints the secret
// once, test pings, deliveries and resend, rotate, and the service's
// refusals as the CLI's errors.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { Webhooks } from "@/server/channels";
import { createApiToken } from "@/server/identity";
import { memoryKeyring } from "@/server/secrets";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { startRestServer, type RestTestServer } from "@/test/helpers/rest";
import { startWebhookReceiver, type WebhookReceiver } from "@/test/helpers/webhook-receiver";
import { main } from "./cli-commands";
import { testServices } from "@/test/helpers/services";

let tk: TestKernel;
let rest: RestTestServer;
let receiver: WebhookReceiver;
let token: string;
const logged: string[] = [];

const rein = (...words: string[]) => main([...words, "--url", rest.base, "--token", token]);

beforeAll(async () => {
  tk = await createTestKernel();
  const webhooks = new Webhooks({ db: tk.t.db, keyring: memoryKeyring() });
  token = (await createApiToken(tk.t.db, { userId: tk.users.admin, name: "cli" })).token;
  rest = await startRestServer(testServices(tk, { webhooks }));
  receiver = await startWebhookReceiver();
}, 60_000);

afterEach(() => {
  vi.restoreAllMocks();
  logged.length = 0;
});

afterAll(async () => {
  await receiver?.close();
  await rest?.close();
  await tk?.cleanup();
});

const capture = () => vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void logged.push(args.join(" ")));

describe("npm run rein -- webhooks", () => {
  it("adds an endpoint (the secret printed once), pings it, lists its deliveries, resends one, rotates and removes it", async () => {
    capture();
    const allowed = new URL(receiver.url).host;
    await rein("webhooks", "allow-hosts", allowed);
    expect(logged.pop()).toBe(`Allowed although not public: ${allowed}`);
    await rein("webhooks", "add", receiver.url, "--events", "run.state_changed,human_request.opened");
    const secret = /whsec_[A-Za-z0-9+/=]+/.exec(logged.join("\n"))![0];
    receiver.useSecret(secret);
    const id = (await tk.t.db.webhookEndpoint.findFirstOrThrow()).id;
    logged.length = 0;
    await rein("webhooks", "test", id);
    expect(logged.join("\n")).toMatch(/test\s+HTTP 200 in \d+ ms/);
    expect(receiver.received.at(-1)!.verified).toBe(true);
    logged.length = 0;
    await rein("webhooks", "list");
    expect(logged.join("\n")).toContain(
      "events human_request.opened, run.state_changed; team every team; 1 delivered, 0 pending, 0 failed",
    );
    expect(logged.join("\n")).not.toContain(secret);
    logged.length = 0;
    await rein("webhooks", "deliveries", id);
    const deliveryId = logged[0].split(" ")[0];
    expect(logged[0]).toMatch(/webhook\.test\s+succeeded 1 attempt\(s\), last HTTP 200/);
    await rein("webhooks", "resend", deliveryId);
    expect(receiver.received.map((r) => r.id)).toEqual([receiver.received[0].id, receiver.received[0].id]);
    logged.length = 0;
    await rein("webhooks", "rotate", id);
    expect(logged.join("\n")).toMatch(/the previous secret signs until/);
    expect(logged.join("\n")).not.toContain(secret);
    await rein("webhooks", "remove", id);
    expect(await tk.t.db.webhookEndpoint.count()).toBe(0);
  });

  it("says what is wrong: a private address, an unknown type, recover without --since, an unknown endpoint", async () => {
    await rein("webhooks", "allow-hosts", "");
    await expect(rein("webhooks", "add", receiver.url)).rejects.toThrow(/400 INVALID_INPUT: url: 127\.0\.0\.1/);
    await expect(rein("webhooks", "add", "https://example.com/x", "--events", "run.exploded")).rejects.toThrow(
      /eventTypes\.0: an event type is one of/,
    );
    await expect(rein("webhooks", "recover", "abc")).rejects.toThrow(/needs --since TIME/);
    await expect(rein("webhooks", "recover", "abc", "--since", "yesterday")).rejects.toThrow(/400 .*since/);
    await expect(rein("webhooks", "deliveries", "nobody")).rejects.toThrow(/404 NOT_FOUND: There is no webhook nobody/);
    expect(await tk.t.db.webhookEndpoint.count()).toBe(0);
  });
});
