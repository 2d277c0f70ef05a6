// Standard Webhooks signatures against the specification's published vector
// and a receiver written from the spec; the retry schedule (issue 19).
import { describe, expect, it } from "vitest";
import { specVerify, startWebhookReceiver } from "@/test/helpers/webhook-receiver";
import {
  RETRY_SCHEDULE_MS,
  WebhookSignatureError,
  afterAttempt,
  newWebhookSecret,
  retryAfterMs,
  signWebhook,
  verifyWebhook,
  webhookHeaders,
} from "./index";

// The vector the Standard Webhooks reference libraries publish.
const VECTOR = {
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
};

describe("Standard Webhooks signatures", () => {
  it("reproduce the specification's example exactly, with or without the prefix", () => {
    expect(signWebhook([VECTOR.secret], VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
    expect(signWebhook([VECTOR.secret.slice("whsec_".length)], VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
    const headers = { "webhook-id": VECTOR.id, "webhook-timestamp": String(VECTOR.timestamp), "webhook-signature": VECTOR.signature };
    expect(() => verifyWebhook(VECTOR.secret, headers, VECTOR.body, VECTOR.timestamp + 10)).not.toThrow();
    expect(specVerify(VECTOR.secret, headers, VECTOR.body, VECTOR.timestamp)).toBe(true);
  });

  it("during a rotation carry one signature per secret, each valid for a receiver holding that secret only", () => {
    const [older, newer] = [newWebhookSecret(), newWebhookSecret()];
    const now = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders([newer, older], "msg_rotation", now, '{"a":1}');
    expect(headers["webhook-signature"].split(" ")).toHaveLength(2);
    for (const secret of [older, newer]) {
      expect(specVerify(secret, headers, '{"a":1}', now)).toBe(true);
      expect(() => verifyWebhook(secret, headers, '{"a":1}', now)).not.toThrow();
    }
    expect(specVerify(newWebhookSecret(), headers, '{"a":1}', now)).toBe(false);
  });

  it.each([
    ["a changed body", { body: '{"test": 2432232315}' }],
    ["another id", { id: "msg_other" }],
    ["a timestamp six minutes old", { now: VECTOR.timestamp + 360 }],
    ["a timestamp six minutes ahead", { now: VECTOR.timestamp - 360 }],
    ["a signature of another version", { signature: VECTOR.signature.replace("v1,", "v2,") }],
    ["no signature", { signature: "" }],
  ])("refuse %s", (_, change: { body?: string; id?: string; now?: number; signature?: string }) => {
    const headers = {
      "webhook-id": change.id ?? VECTOR.id,
      "webhook-timestamp": String(VECTOR.timestamp),
      "webhook-signature": change.signature ?? VECTOR.signature,
    };
    expect(() => verifyWebhook(VECTOR.secret, headers, change.body ?? VECTOR.body, change.now ?? VECTOR.timestamp)).toThrow(
      WebhookSignatureError,
    );
  });

  it("refuse secrets that are not base64 keys, and ids that would break the signed string", () => {
    expect(() => signWebhook(["whsec_not base64!"], "msg_1", 1, "{}")).toThrow(WebhookSignatureError);
    expect(() => signWebhook(["whsec_c2hvcnQ="], "msg_1", 1, "{}")).toThrow(/16 to 64 bytes/);
    expect(() => signWebhook([VECTOR.secret], "msg.1", 1, "{}")).toThrow(WebhookSignatureError);
    expect(newWebhookSecret()).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
  });

  it("a receiver written from the spec verifies what Rein sends over HTTP", async () => {
    const secret = newWebhookSecret();
    const receiver = await startWebhookReceiver(secret);
    try {
      const body = JSON.stringify({ type: "run.state", data: { runId: "r1", state: "succeeded", seq: 7 } });
      const headers = webhookHeaders([secret], "msg_http_1", Math.floor(Date.now() / 1000), body);
      const res = await fetch(receiver.url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
      expect(res.status).toBe(200);
      expect(receiver.received).toHaveLength(1);
      expect(receiver.received[0]).toMatchObject({ id: "msg_http_1", verified: true });
    } finally {
      await receiver.close();
    }
  });
});

describe("the retry schedule", () => {
  const now = new Date("2026-11-27T10:00:00Z");
  const healthySince = new Date("2026-11-27T09:00:00Z");
  const wait = (v: ReturnType<typeof afterAttempt>) => (v.kind === "retry" ? v.at.getTime() - now.getTime() : null);

  it("follows 0 s, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, jittered by at most a fifth, then gives up", () => {
    expect(RETRY_SCHEDULE_MS).toHaveLength(8);
    for (let attempt = 1; attempt < 8; attempt++) {
      const planned = RETRY_SCHEDULE_MS[attempt];
      expect(wait(afterAttempt({ attempt, status: 500, now, healthySince, random: 0.5 }))).toBe(planned);
      expect(wait(afterAttempt({ attempt, status: null, now, healthySince, random: 0 }))).toBe(Math.round(planned * 0.8));
      expect(wait(afterAttempt({ attempt, status: 502, now, healthySince, random: 0.999999 }))).toBeLessThanOrEqual(
        Math.round(planned * 1.2),
      );
    }
    expect(afterAttempt({ attempt: 8, status: 500, now, healthySince })).toMatchObject({
      kind: "failed",
      why: "Gave up after 8 attempts (last: HTTP 500)",
    });
  });

  it("delivered on any 2xx; 410 disables at once; five days of failure disable", () => {
    expect(afterAttempt({ attempt: 1, status: 204, now, healthySince }).kind).toBe("delivered");
    expect(afterAttempt({ attempt: 1, status: 410, now, healthySince })).toMatchObject({ kind: "disable" });
    expect(afterAttempt({ attempt: 3, status: 500, now, healthySince: new Date(now.getTime() - 5 * 24 * 3600_000) })).toMatchObject({
      kind: "disable",
      why: "The endpoint has failed for 5 days (last: HTTP 500)",
    });
  });

  it("429 and 503 wait at least what Retry-After asks, in seconds or as a date, capped at a day", () => {
    expect(wait(afterAttempt({ attempt: 1, status: 429, retryAfter: "120", now, healthySince, random: 0.5 }))).toBe(120_000);
    expect(
      wait(
        afterAttempt({
          attempt: 1,
          status: 503,
          retryAfter: new Date(now.getTime() + 90_000).toUTCString(),
          now,
          healthySince,
          random: 0.5,
        }),
      ),
    ).toBe(90_000);
    // Asking for less than the schedule does not make it sooner; a 500's Retry-After is not a request.
    expect(wait(afterAttempt({ attempt: 3, status: 429, retryAfter: "1", now, healthySince, random: 0.5 }))).toBe(RETRY_SCHEDULE_MS[3]);
    expect(wait(afterAttempt({ attempt: 1, status: 500, retryAfter: "600", now, healthySince, random: 0.5 }))).toBe(5_000);
    expect(retryAfterMs("999999999", now)).toBe(24 * 3600_000);
    expect(retryAfterMs("soon", now)).toBeNull();
    expect(retryAfterMs(new Date(now.getTime() - 5000).toUTCString(), now)).toBe(0);
  });
});
