// The CLI's model commands against a real server and a fake OpenAI-compatible
// provider: add a provider and a model, test it, launch a run on it; the key
// is shown masked only; bad options get clear errors.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken, createUser } from "@/server/identity";
import { startFakeOpenAI, type FakeServer } from "@/server/models";
import { runCli } from "./helpers/cli";
import { createTestDb, type TestDb } from "./helpers/db";
import { freePort, spawnServer, type ServerProcess } from "./helpers/server-process";
import { waitFor } from "./helpers/wait";

const KEY = "sk-cli-test-0123456789abcdef";

let t: TestDb;
let server: ServerProcess;
let fake: FakeServer;
const tokens = {} as Record<"admin" | "operator", string>;

const cli = (as: "admin" | "operator", ...args: string[]) => runCli(server, tokens[as], args);

beforeAll(async () => {
  t = await createTestDb();
  fake = await startFakeOpenAI({ apiKey: KEY, models: ["fake-large", "fake-small"] });
  for (const role of ["admin", "operator"] as const) {
    const userId = await createUser(t.db, { email: `${role}@rein.test`, password: "password-123", role });
    tokens[role] = (await createApiToken(t.db, { userId, name: "cli" })).token;
  }
  await t.db.$disconnect();
  const s = spawnServer({ REIN_DATA_DIR: t.dir, PORT: String(await freePort()), REIN_UI: "off" });
  await s.ready;
  server = s;
}, 60_000);

afterAll(async () => {
  await server?.kill();
  await fake?.close();
  await t?.cleanup();
});

describe("rein CLI: providers and models", () => {
  it("adds a provider and a model, tests the provider, and runs an agent on the model", async () => {
    const added = await cli(
      "admin",
      "provider",
      "add",
      "--kind",
      "openai-compatible",
      "--base-url",
      fake.baseUrl,
      "--api-key",
      KEY,
      "--name",
      "fake",
    );
    expect(added.stderr).toBe("");
    expect(added.code).toBe(0);
    expect(added.stdout).toContain("Provider fake (openai-compatible) added, key sk-…cdef");
    expect(added.stdout).not.toContain(KEY);

    const listed = await cli("admin", "provider", "list");
    expect(listed.stdout).toMatch(/fake\s+openai-compatible/);
    expect(listed.stdout).not.toContain(KEY);

    const tested = await cli("admin", "provider", "test", "--name", "fake");
    expect(tested.code).toBe(0);
    expect(tested.stdout).toContain("fake works");
    expect(tested.stdout).toContain("fake-large");

    const model = await cli(
      "admin",
      "model",
      "add",
      "--provider",
      "fake",
      "--id",
      "fake-large",
      "--family",
      "fakefam",
      "--input-price",
      "1",
      "--output-price",
      "4",
    );
    expect(model.code).toBe(0);
    expect(model.stdout).toContain("Model fake/fake-large saved");
    expect((await cli("admin", "model", "list")).stdout).toMatch(/fake\/fake-large\s+fakefam.*\$1\/\$4 per MTok/);

    fake.enqueue({ type: "reply", reply: { text: "Hello from the fake provider via the CLI." } });
    const ran = await cli("operator", "run", "--goal", "Say hello", "--model", "fake/fake-large", "--wait");
    expect(ran.stdout).toContain("Hello from the fake provider via the CLI.");
    expect(ran.stdout).toMatch(/Run \S+ succeeded/);
    expect(ran.code).toBe(0);
    expect(fake.lastRequest().headers.authorization).toBe(`Bearer ${KEY}`);
  }, 60_000);

  it("refuses bad input with clear messages and changes nothing", async () => {
    const noKind = await cli("admin", "provider", "add", "--name", "x");
    expect(noKind.code).toBe(1);
    expect(noKind.stderr).toContain("needs --kind");
    const noKey = await cli("admin", "provider", "add", "--kind", "openai", "--name", "openai-x");
    expect(noKey.stderr).toMatch(/400 INVALID_INPUT: apiKey: an openai provider needs an API key/);
    const dup = await cli("admin", "provider", "add", "--kind", "openai-compatible", "--base-url", fake.baseUrl, "--name", "fake");
    expect(dup.stderr).toContain('409 CONFLICT: A provider named "fake" already exists');
    const noProvider = await cli("admin", "model", "add", "--provider", "nope", "--id", "m", "--family", "f");
    expect(noProvider.stderr).toContain('404 NOT_FOUND: There is no provider named "nope"');
    const asOperator = await cli("operator", "provider", "list");
    expect(asOperator.stderr).toContain("403 FORBIDDEN: This needs the admin role");
    const unknown = await cli("operator", "run", "--goal", "x", "--model", "nope/model");
    expect(unknown.stderr).toContain("400 UNKNOWN_MODEL");
    const bad = await cli("operator", "run", "--goal", "x", "--complexity", "2");
    expect(bad.stderr).toContain("--complexity is a number from 0 to 1");
    const providers = JSON.parse((await cli("admin", "provider", "list", "--json")).stdout);
    expect(providers.map((p: { name: string }) => p.name)).toEqual(["fake"]);
  }, 60_000);
});

describe("start-up message", () => {
  it("a restarted server says which providers and models are configured, and what the desktop tier can do", async () => {
    await server.kill("SIGTERM");
    const port = String(await freePort());
    const s = spawnServer({ REIN_DATA_DIR: t.dir, PORT: port, REIN_UI: "off" });
    server = s;
    await s.ready;
    // The lines after "Rein is ready" may arrive in a later chunk.
    await waitFor(() => /Desktops \(T2\)/.test(s.output()), "the start-up message");
    expect(s.output()).toContain("Models: 1 provider and 1 model configured (Settings › Models)");
    expect(s.output()).not.toContain("no provider configured");
    // spawnServer keeps no desktop warm; whether the programs are here depends on the machine.
    expect(s.output()).toMatch(/Desktops \(T2\): Xvfb, Chromium and x11vnc on loopback; 0 kept warm|Desktops \(T2\) are not available: /);
  }, 60_000);
});
