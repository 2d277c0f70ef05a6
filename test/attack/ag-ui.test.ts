// Attack suite: AG-UI over REST v1 (docs/ag-ui.md#security). Another team's
// run is an unknown id on both routes, and so is another team to start a run
// in; a viewer cannot start a run or answer an interrupt; an oversized, too
// deep, too long or malformed RunAgentInput is a 4xx in REST's error shape and
// starts nothing; an interrupt of one run cannot be answered through another
// run's thread; and a secret pasted into a goal or a message never comes back
// in a stream.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken, createUser } from "@/server/identity";
import { createRun } from "@/server/kernel";
import { putSecret } from "@/server/secrets";
import { MAX_AG_UI_BODY, MAX_AG_UI_MESSAGES } from "@/server/channels";
import { createTestKernel, type TestKernel } from "../helpers/kernel";
import { startRestServer, type RestTestServer } from "../helpers/rest";
import { testServices } from "../helpers/services";
import { waitFor } from "../helpers/wait";

let tk: TestKernel;
let rest: RestTestServer;
const tokens = {} as Record<"viewer" | "operator" | "approver" | "outsider", string>;
/** Two runs of the default team, each waiting for approval of its deploy. */
const runs: Array<{ id: string; requestId: string }> = [];

const input = (over: Record<string, unknown> = {}) => ({
  threadId: "new-thread",
  runId: "client-run",
  messages: [{ id: "m1", role: "user", content: "Deploy version 1.4.0 to production" }],
  forwardedProps: { agent: "demo-deploy" },
  ...over,
});

const SECRET = "s3cr3t-value-of-the-deploy-token";

/** A stream's text, read until its AG-UI run finishes. */
async function streamText(token: string, body: unknown): Promise<string> {
  const res = await fetch(`${rest.base}/api/v1/ag-ui`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return res.text();
}

const approve = (interruptId: string) => [{ interruptId, status: "resolved", payload: { decision: "approve" } }];

async function pending(requestId: string) {
  return (await tk.t.db.humanRequest.findUniqueOrThrow({ where: { id: requestId } })).state;
}

beforeAll(async () => {
  tk = await createTestKernel({ hitl: true, secrets: true });
  await putSecret(tk.t.db, tk.keyring!, { name: "DEPLOY_TOKEN", value: SECRET, actor: tk.users.admin });
  for (const role of ["viewer", "operator", "approver"] as const)
    tokens[role] = (await createApiToken(tk.t.db, { userId: tk.users[role], name: role })).token;
  const outsider = await createUser(tk.t.db, {
    email: "approver@other.team",
    password: "password-123",
    role: "approver",
    teams: ["other-team"],
  });
  tokens.outsider = (await createApiToken(tk.t.db, { userId: outsider, name: "outsider" })).token;
  rest = await startRestServer(testServices(tk));
  for (const where of ["production", "staging"]) {
    const run = await createRun(tk.kernel, { goal: `Deploy version 1.4.0 to ${where}`, agent: "demo-deploy" }, tk.actors.operator);
    const request = await waitFor(
      () => tk.t.db.humanRequest.findFirst({ where: { runId: run.id, state: "PENDING" } }),
      "the approval request",
    );
    runs.push({ id: run.id, requestId: request.id });
  }
});

afterAll(async () => {
  await rest?.close();
  await tk?.cleanup();
});

describe("another team's run", () => {
  it("cannot be watched: 404 exactly as an unknown run, and nothing of it is said", async () => {
    const theirs = await rest.call(tokens.outsider, "GET", `/api/v1/runs/${runs[0].id}/ag-ui`);
    const unknown = await rest.call(tokens.outsider, "GET", `/api/v1/runs/no-such-run/ag-ui`);
    expect(theirs.status).toBe(404);
    expect(theirs.json.error.code).toBe("NOT_FOUND");
    expect(theirs.text.replace(runs[0].id, "X")).toBe(unknown.text.replace("no-such-run", "X"));
    expect(theirs.text).not.toMatch(/deploy/i);
  });

  it("cannot be sent a message or have its interrupt answered through its thread", async () => {
    const before = await tk.t.db.runEvent.count({ where: { runId: runs[0].id } });
    const message = await rest.call(tokens.outsider, "POST", "/api/v1/ag-ui", input({ threadId: runs[0].id, forwardedProps: {} }));
    expect(message.status).toBe(404);
    const answer = await rest.call(
      tokens.outsider,
      "POST",
      "/api/v1/ag-ui",
      input({ threadId: runs[0].id, resume: approve(runs[0].requestId) }),
    );
    expect(answer.status).toBe(404);
    expect(answer.json.error.code).toBe("NOT_FOUND");
    expect(await pending(runs[0].requestId)).toBe("PENDING");
    expect(await tk.t.db.runEvent.count({ where: { runId: runs[0].id } })).toBe(before);
  });
});

describe("a team named in forwardedProps", () => {
  it("that the person is not in, by id or by name, is refused as unknown, and no run is made", async () => {
    const other = await tk.t.db.team.findFirstOrThrow({ where: { name: "other-team" } });
    const before = await tk.t.db.run.count();
    for (const teamId of [other.id, other.name]) {
      const res = await rest.call(tokens.operator, "POST", "/api/v1/ag-ui", input({ forwardedProps: { agent: "demo-deploy", teamId } }));
      expect(res.status, res.text).toBe(404);
      expect(res.json.error.code).toBe("NOT_FOUND");
    }
    expect(await tk.t.db.run.count()).toBe(before);
  });
});

describe("a viewer", () => {
  it("cannot start a run: 403, and no run is made", async () => {
    const before = await tk.t.db.run.count();
    const res = await rest.call(tokens.viewer, "POST", "/api/v1/ag-ui", input());
    expect(res.status).toBe(403);
    expect(res.json.error.code).toBe("FORBIDDEN");
    expect(await tk.t.db.run.count()).toBe(before);
  });

  it("cannot answer an interrupt: 403, and the request stays open", async () => {
    const res = await rest.call(
      tokens.viewer,
      "POST",
      "/api/v1/ag-ui",
      input({ threadId: runs[0].id, resume: approve(runs[0].requestId) }),
    );
    expect(res.status).toBe(403);
    expect(await pending(runs[0].requestId)).toBe("PENDING");
  });

  it("may watch a run of its team", async () => {
    const abort = new AbortController();
    const res = await fetch(`${rest.base}/api/v1/runs/${runs[0].id}/ag-ui`, {
      headers: { authorization: `Bearer ${tokens.viewer}` },
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    abort.abort();
  });
});

describe("a bad RunAgentInput", () => {
  it.each<[string, unknown, number, string]>([
    [
      "more messages than allowed",
      input({ messages: Array.from({ length: MAX_AG_UI_MESSAGES + 1 }, (_, i) => ({ id: `m${i}`, role: "user", content: "x" })) }),
      400,
      "INVALID_INPUT",
    ],
    ["no threadId", { runId: "r", messages: [] }, 400, "INVALID_INPUT"],
    ["a message of an unknown role", input({ messages: [{ id: "m", role: "root", content: "x" }] }), 400, "INVALID_INPUT"],
    ["a threadId longer than an id", input({ threadId: "t".repeat(201) }), 400, "INVALID_INPUT"],
    ["JSON nested deeper than allowed", input({ state: JSON.parse("[".repeat(100) + "]".repeat(100)) }), 400, "INVALID_INPUT"],
    [
      "more interrupt answers than allowed",
      input({ resume: Array.from({ length: 21 }, (_, i) => ({ interruptId: `i${i}`, status: "cancelled" })) }),
      400,
      "INVALID_INPUT",
    ],
    [
      "a resolved interrupt without its answer",
      input({ threadId: "x", resume: [{ interruptId: "i", status: "resolved", payload: { decision: "maybe" } }] }),
      400,
      "INVALID_INPUT",
    ],
    ["a start without a user message", input({ messages: [{ id: "a", role: "assistant", content: "hi" }] }), 400, "INVALID_INPUT"],
    ["a start of an unknown agent", input({ forwardedProps: { agent: "nobody" } }), 400, "UNKNOWN_AGENT"],
  ])("%s is refused with a clear error, and starts nothing", async (_, body, status, code) => {
    const before = await tk.t.db.run.count();
    const res = await rest.call(tokens.operator, "POST", "/api/v1/ag-ui", body);
    expect(res.status, res.text).toBe(status);
    expect(res.json.error).toMatchObject({ code, message: expect.any(String) });
    expect(await tk.t.db.run.count()).toBe(before);
  });

  it("a body larger than the limit is 413", async () => {
    const before = await tk.t.db.run.count();
    const res = await rest.call(
      tokens.operator,
      "POST",
      "/api/v1/ag-ui",
      input({ forwardedProps: { agent: "demo-deploy", pad: "x".repeat(MAX_AG_UI_BODY) } }),
    );
    expect(res.status).toBe(413);
    expect(res.json.error.code).toBe("PAYLOAD_TOO_LARGE");
    expect(await tk.t.db.run.count()).toBe(before);
  });

  it("malformed JSON is 400 INVALID_JSON, and a Last-Event-ID that is not a seq is 400", async () => {
    const res = await fetch(`${rest.base}/api/v1/ag-ui`, {
      method: "POST",
      headers: { authorization: `Bearer ${tokens.operator}`, "content-type": "application/json" },
      body: '{"threadId": ',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("INVALID_JSON");
    const cursor = await rest.call(tokens.viewer, "GET", `/api/v1/runs/${runs[0].id}/ag-ui`, undefined, { "last-event-id": "-1" });
    expect(cursor.status).toBe(400);
    expect(cursor.json.error.code).toBe("INVALID_INPUT");
  });
});

describe("an interrupt of another run", () => {
  it("cannot be answered through this run's thread: 404, and both requests stay open", async () => {
    const res = await rest.call(
      tokens.approver,
      "POST",
      "/api/v1/ag-ui",
      input({ threadId: runs[0].id, resume: approve(runs[1].requestId) }),
    );
    expect(res.status).toBe(404);
    expect(res.json.error.message).toContain(runs[1].requestId);
    expect(await pending(runs[1].requestId)).toBe("PENDING");
    expect(await pending(runs[0].requestId)).toBe("PENDING");
  });

  it("nor mixed with an answer to this run's: nothing is answered", async () => {
    const res = await rest.call(
      tokens.approver,
      "POST",
      "/api/v1/ag-ui",
      input({ threadId: runs[0].id, resume: [...approve(runs[0].requestId), ...approve(runs[1].requestId)] }),
    );
    expect(res.status).toBe(404);
    expect(await pending(runs[0].requestId)).toBe("PENDING");
    expect(await pending(runs[1].requestId)).toBe("PENDING");
  });
});

describe("a secret a person pasted", () => {
  it("into the goal or a message never comes back in a stream", async () => {
    const started = await streamText(
      tokens.operator,
      input({ messages: [{ id: "m1", role: "user", content: `Deploy version 1.4.0 to qa with ${SECRET}` }] }),
    );
    const runId = started.match(/"threadId":"([^"]+)"/)![1];
    expect(started).toMatch(/"outcome":\{"type":"interrupt"/);
    const messaged = await streamText(
      tokens.operator,
      input({ threadId: runId, forwardedProps: {}, messages: [{ id: "m2", role: "user", content: `Also use ${SECRET}` }] }),
    );
    expect(messaged).toMatch(/"role":"user"/);
    const watched = await (async () => {
      const abort = new AbortController();
      const res = await fetch(`${rest.base}/api/v1/runs/${runId}/ag-ui`, {
        headers: { authorization: `Bearer ${tokens.viewer}` },
        signal: abort.signal,
      });
      const reader = res.body!.getReader();
      let text = "";
      while (!text.includes("RUN_FINISHED")) text += new TextDecoder().decode((await reader.read()).value);
      abort.abort();
      return text;
    })();
    for (const text of [started, messaged, watched]) {
      expect(text).not.toContain(SECRET);
      expect(text).toContain("DEPLOY_TOKEN");
    }
  });
});
