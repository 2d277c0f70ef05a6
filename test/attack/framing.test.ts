// Attack suite: a page of another site framing Rein (clickjacking). The
// cross-site checks take a request from Rein's own page, and a click inside
// a frame is one; another port of the same host, or another name of the same
// site, gets the session cookie into its frame. So every answer Rein's web
// server gives forbids being framed by anybody: the Inbox's Approve, a
// signed link's page and Settings can only be clicked in Rein's own window.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken, createUser } from "@/server/identity";
import { createTestDb, type TestDb } from "../helpers/db";
import { freePort, spawnServer, type ServerProcess } from "../helpers/server-process";

let t: TestDb;
let server: ServerProcess;
let token: string;

beforeAll(async () => {
  t = await createTestDb();
  const userId = await createUser(t.db, { email: "approver@rein.test", password: "password-123", role: "approver" });
  token = (await createApiToken(t.db, { userId, name: "program" })).token;
  const s = spawnServer({ REIN_DATA_DIR: t.dir, PORT: String(await freePort()), REIN_POD_POOL_SIZE: "0" });
  await s.ready;
  server = s;
}, 60_000);

afterAll(async () => {
  await server?.kill("SIGTERM");
  await t?.cleanup();
});

describe("every answer forbids framing", () => {
  it.each([
    ["a signed link's page", "/resume?t=anything", {}],
    ["the Inbox", "/inbox", {}],
    ["REST", "/api/v1/runs", { authorization: `Bearer TOKEN` }],
    ["tRPC", "/api/trpc/identity.me", { authorization: `Bearer TOKEN` }],
    ["a refused cross-site change", "/api/v1/runs", { origin: "http://evil.test", cookie: "next-auth.session-token=x", method: "POST" }],
  ])("%s", async (_name, path, headers: Record<string, string>) => {
    const { method = "GET", ...rest } = headers;
    const h = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, v.replace("TOKEN", token)]));
    const res = await fetch(`${server.url}${path}`, { method, headers: h, redirect: "manual" });
    await res.arrayBuffer();
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
  });
});
