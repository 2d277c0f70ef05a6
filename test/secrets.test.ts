// A run whose shell command uses a secret (docs/secrets.md): the command gets
// the value, and the value is nowhere else: not in the event log, the spans,
// the checkpoints or the replay cache (the whole database is searched), the
// prompt a real provider was sent, the terminal stream, the workspace or git.
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { DEFAULT_LIMITS, PodPool, probeSandbox } from "@/server/compute";
import { createRun } from "@/server/kernel";
import { startFakeOpenAI, type FakeServer } from "@/server/models";
import { SecretValidationError, putSecret, setSecretScope } from "@/server/secrets";

const VALUE = "dpl-7Hq2zX9vLm4K-s3cr3t-0042";
const PROVIDER_KEY = "sk-fake-provider-key-0123456789";
const WRONG_KEY = "sk-wrong-provider-key-9876543210";
const COMMAND = 'echo "$DEPLOY_TOKEN" | wc -c; printf %s "$DEPLOY_TOKEN" | sha256sum; echo token=$DEPLOY_TOKEN';
const SHA = crypto.createHash("sha256").update(VALUE).digest("hex");
/** Every form a leak could take that redaction knows: plain and base64. */
const FORBIDDEN = [VALUE, Buffer.from(VALUE).toString("base64").slice(0, 24), PROVIDER_KEY, WRONG_KEY];

function expectClean(text: string, where: string) {
  for (const f of FORBIDDEN) expect(text.includes(f), `${where} contains ${f.slice(0, 12)}…`).toBe(false);
}

/** Every row of every table of the test database, as text. */
function databaseDump(tk: TestKernel): string {
  const db = new Database(path.join(tk.t.dir, "rein.db"), { readonly: true });
  try {
    const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as Array<{ name: string }>;
    return tables.map((t) => `${t.name}: ${JSON.stringify(db.prepare(`SELECT * FROM "${t.name}"`).all())}`).join("\n");
  } finally {
    db.close();
  }
}

/** Every file under the run's workspace (git's own files included), and what git shows of its history. */
function workspaceText(tk: TestKernel, runId: string): string {
  const root = tk.kernel.deps.workspaceFor(runId).root;
  const files = (fs.readdirSync(root, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((e) => e.isFile())
    .map((e) => fs.readFileSync(path.join(e.parentPath, e.name), "latin1"));
  const git = (args: string[]) => execFileSync("git", args, { cwd: root, encoding: "utf8" });
  return [...files, git(["log", "-p", "--all"]), git(["status", "--porcelain", "--ignored"])].join("\n");
}

async function events(tk: TestKernel, runId: string) {
  const rows = await tk.t.db.runEvent.findMany({ where: { runId }, orderBy: { seq: "asc" }, select: { type: true, payload: true } });
  return rows.map((r) => ({ type: r.type, payload: JSON.parse(r.payload) }));
}

/** The command ran with the value: its length and hash are printed, the value itself redacted. */
async function expectCommandGotValue(tk: TestKernel, runId: string) {
  const result = (await events(tk, runId)).find((e) => e.type === "tool.result")!;
  expect(result.payload).toMatchObject({ tool: "shell", ok: true });
  const [length, hash, echoed] = (result.payload.output.output as string).trim().split("\n");
  expect(Number(length.trim())).toBe(VALUE.length + 1);
  expect(hash.split(" ")[0]).toBe(SHA);
  expect(echoed).toBe("token=[secret:DEPLOY_TOKEN]");
}

async function expectNoLeak(tk: TestKernel, runId: string) {
  await tk.telemetry!.settle();
  const spans = await tk.t.db.span.findMany({ where: { runId } });
  expect(spans.length).toBeGreaterThan(2);
  expect(JSON.stringify(spans)).toContain("[secret:DEPLOY_TOKEN]"); // the output reached the trace, redacted
  expectClean(JSON.stringify(await events(tk, runId)), "the event log");
  expectClean(JSON.stringify(spans), "the spans");
  expectClean(databaseDump(tk), "the database");
  expectClean(workspaceText(tk, runId), "the workspace");
}

/** These tests are about delivery and redaction: the secret may go to any agent, team and scenario (scopes: test/attack/secret-scope.test.ts). */
async function allowEverywhere(tk: TestKernel) {
  await setSecretScope(
    tk.t.db,
    { name: "DEPLOY_TOKEN", scope: { agents: ["*"], teams: ["*"], callerCommands: true } },
    { userId: tk.users.admin, name: "admin", channel: "test" },
  );
}

const scenario = [{ toolCalls: [{ tool: "shell", args: { command: COMMAND } }] }, { text: "Deployed." }];

describe("a scripted run's shell as a plain child process", () => {
  let tk: TestKernel;
  beforeAll(async () => {
    tk = await createTestKernel({ secrets: true, telemetry: true });
    await putSecret(tk.t.db, tk.keyring!, { name: "DEPLOY_TOKEN", value: VALUE, actor: tk.users.admin });
    await allowEverywhere(tk);
  }, 60_000);
  afterAll(async () => tk?.cleanup());

  it("gets the secret it was launched with; the value is nowhere else", async () => {
    const run = await createRun(
      tk.kernel,
      { goal: "Deploy", agent: "demo-coder", scenario, secrets: ["DEPLOY_TOKEN"] },
      tk.actors.operator,
    );
    expect(await tk.settle(run.id)).toBe("succeeded");
    await expectCommandGotValue(tk, run.id);
    expect((await events(tk, run.id))[0].payload.secrets).toEqual(["DEPLOY_TOKEN"]);
    await expectNoLeak(tk, run.id);
    const secret = await tk.t.db.secret.findUniqueOrThrow({ where: { name: "DEPLOY_TOKEN" } });
    expect(secret.lastUsedAt).not.toBeNull();
  });

  it("a run launched without it gets nothing; an agent spec that lists it gets it", async () => {
    const without = await createRun(tk.kernel, { goal: "Deploy", agent: "demo-coder", scenario }, tk.actors.operator);
    expect(await tk.settle(without.id)).toBe("succeeded");
    const out = (await events(tk, without.id)).find((e) => e.type === "tool.result")!.payload.output.output as string;
    expect(out.split("\n")[0].trim()).toBe("1"); // just the newline
    await tk.t.db.agentSpec.create({
      data: {
        name: "deployer",
        version: 1,
        instructions: "Deploy.",
        model: "scripted/demo-coder",
        tools: JSON.stringify(["shell"]),
        guardrails: JSON.stringify({ secrets: ["DEPLOY_TOKEN"] }),
      },
    });
    const run = await createRun(tk.kernel, { goal: "Deploy", agent: "deployer", scenario }, tk.actors.operator);
    expect(await tk.settle(run.id)).toBe("succeeded");
    await expectCommandGotValue(tk, run.id);
  });

  it("refuses a launch with an unknown secret or a provider key, writing nothing", async () => {
    await putSecret(tk.t.db, tk.keyring!, { name: "provider/openai/api-key", value: PROVIDER_KEY, actor: null });
    const before = await tk.t.db.run.count();
    await expect(createRun(tk.kernel, { goal: "g", agent: "demo-coder", scenario, secrets: ["NOPE"] }, tk.actors.operator)).rejects.toThrow(
      'No secret named "NOPE"',
    );
    await expect(
      createRun(tk.kernel, { goal: "g", agent: "demo-coder", scenario, secrets: ["provider/openai/api-key"] }, tk.actors.operator),
    ).rejects.toBeInstanceOf(SecretValidationError);
    expect(await tk.t.db.run.count()).toBe(before);
  });
});

describe("a scripted run's shell in a terminal pod", () => {
  let tk: TestKernel;
  let pods: PodPool;
  let stream = "";
  beforeAll(async () => {
    const sandbox = probeSandbox();
    const dataDir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? "/tmp", "rein-secrets-pods-"));
    pods = new PodPool({ dataDir, size: 0, limits: DEFAULT_LIMITS, sandbox, allowUnsandboxed: true });
    await pods.start();
    pods.onChange((_runId, pod) => void pod?.onData((chunk) => (stream += chunk), { replay: true }));
    tk = await createTestKernel({ secrets: true, telemetry: true, terminals: pods });
    await putSecret(tk.t.db, tk.keyring!, { name: "DEPLOY_TOKEN", value: VALUE, actor: tk.users.admin });
    await allowEverywhere(tk);
  }, 60_000);
  afterAll(async () => {
    await tk?.cleanup();
    await pods?.stop();
  });

  it("the command gets the value; the terminal stream shows only the redacted output and never the value", async () => {
    const run = await createRun(
      tk.kernel,
      { goal: "Deploy", agent: "demo-coder", scenario, secrets: ["DEPLOY_TOKEN"] },
      tk.actors.operator,
    );
    expect(await tk.settle(run.id)).toBe("succeeded");
    expect((await events(tk, run.id)).find((e) => e.type === "terminal.attached")).toBeDefined();
    await expectCommandGotValue(tk, run.id);
    expect(stream).toContain("token=[secret:DEPLOY_TOKEN]");
    expect(stream).toContain(COMMAND); // the command was typed as given, with a variable, not a value
    expectClean(stream, "the terminal stream");
    await expectNoLeak(tk, run.id);
  });
});

describe("a run on a real provider backend", () => {
  let tk: TestKernel;
  let fake: FakeServer;
  beforeAll(async () => {
    tk = await createTestKernel({ secrets: true, models: true, telemetry: true });
    fake = await startFakeOpenAI({ apiKey: PROVIDER_KEY, models: ["m1"] });
    const admin = { userId: tk.users.admin, name: "admin" };
    await tk.models!.admin.createProvider({ name: "fake", kind: "openai-compatible", baseUrl: fake.baseUrl, apiKey: PROVIDER_KEY }, admin);
    await tk.models!.admin.createProvider({ name: "wrongkey", kind: "openai-compatible", baseUrl: fake.baseUrl, apiKey: WRONG_KEY }, admin);
    await tk.models!.admin.saveModel({ provider: "fake", modelId: "m1", family: "alpha" }, admin);
    await tk.models!.admin.saveModel({ provider: "wrongkey", modelId: "m1", family: "alpha" }, admin);
    await putSecret(tk.t.db, tk.keyring!, { name: "DEPLOY_TOKEN", value: VALUE, actor: tk.users.admin });
    await allowEverywhere(tk);
  }, 60_000);
  afterAll(async () => {
    await tk?.cleanup();
    await fake?.close();
  });

  it("the prompt sent to the model has the command's output, redacted, and never the value", async () => {
    fake.enqueue(
      { type: "reply", reply: { toolCalls: [{ id: "call_1", name: "shell", arguments: JSON.stringify({ command: COMMAND }) }] } },
      { type: "reply", reply: { text: "Deployed." } },
    );
    const run = await createRun(
      tk.kernel,
      { goal: "Deploy", agent: "demo-coder", model: "fake/m1", secrets: ["DEPLOY_TOKEN"] },
      tk.actors.operator,
    );
    expect(await tk.settle(run.id)).toBe("succeeded");
    await expectCommandGotValue(tk, run.id);
    expect(fake.requests).toHaveLength(2);
    const prompt = JSON.stringify(fake.requests[1].body);
    expect(prompt).toContain(SHA);
    expect(prompt).toContain("token=[secret:DEPLOY_TOKEN]");
    expectClean(JSON.stringify(fake.requests.map((r) => r.body)), "the prompts");
    await expectNoLeak(tk, run.id);
  });

  it("a provider's error quoting the key it was sent reaches neither the event log nor the run's reason", async () => {
    const run = await createRun(tk.kernel, { goal: "Hello", agent: "demo-coder", model: "wrongkey/m1" }, tk.actors.operator);
    expect(await tk.settle(run.id)).toBe("failed");
    expect(JSON.stringify(fake.lastRequest().headers)).toContain(WRONG_KEY); // it was sent, and quoted back
    const error = (await events(tk, run.id)).find((e) => e.type === "model.error")!;
    expect(error.payload.error).toMatch(/authentication failed/);
    await tk.telemetry!.settle();
    expectClean(databaseDump(tk), "the database");
  });
});
