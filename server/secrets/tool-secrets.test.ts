// Secrets at the tool boundary and as admins manage them, on a real SQLite
// database: which names a run may get, the values a tool's process gets,
// what the redactor learns, and every change audited without its value.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/test/helpers/db";
import {
  SecretNotFoundError,
  SecretValidationError,
  ToolSecrets,
  checkToolSecretNames,
  envNameOf,
  getSecretValue,
  listSecrets,
  listToolSecrets,
  memoryKeyring,
  putSecret,
  removeToolSecret,
  setToolSecret,
} from "./index";

let t: TestDb;
const ring = memoryKeyring();
const ADMIN = { userId: "admin-1", name: "Ada", channel: "web" };
const VALUE = "dpl-Zq81-77aa-KEEP-OUT";
const PROVIDER_KEY = "sk-provider-0123456789abcdef";

beforeEach(async () => {
  t = await createTestDb();
  await putSecret(t.db, ring, { name: "provider/openai/api-key", value: PROVIDER_KEY, actor: null });
});
afterEach(async () => {
  await t.cleanup();
});

describe("names a run may be given", () => {
  it("maps names to variables", () => {
    expect(envNameOf("DEPLOY_TOKEN")).toBe("DEPLOY_TOKEN");
    expect(envNameOf("deploy/token")).toBe("DEPLOY_TOKEN");
    expect(envNameOf("team.a:key-1")).toBe("TEAM_A_KEY_1");
  });

  it("accepts existing secrets once each, and refuses provider keys, unknown names and clashes", async () => {
    await putSecret(t.db, ring, { name: "DEPLOY_TOKEN", value: VALUE, actor: null });
    await putSecret(t.db, ring, { name: "deploy/token", value: "other", actor: null });
    expect(await checkToolSecretNames(t.db, ["DEPLOY_TOKEN", "DEPLOY_TOKEN"])).toEqual(["DEPLOY_TOKEN"]);
    await expect(checkToolSecretNames(t.db, ["provider/openai/api-key"])).rejects.toThrow(/provider keys are never given to tools/);
    await expect(checkToolSecretNames(t.db, ["NOPE", "ALSO_NOPE"])).rejects.toThrow('No secret named "NOPE", "ALSO_NOPE"');
    await expect(checkToolSecretNames(t.db, ["DEPLOY_TOKEN", "deploy/token"])).rejects.toThrow(/would both be \$DEPLOY_TOKEN/);
    await expect(checkToolSecretNames(t.db, ["path"])).rejects.toBeInstanceOf(SecretValidationError);
    await expect(
      checkToolSecretNames(
        t.db,
        Array.from({ length: 21 }, (_, i) => `S${i}`),
      ),
    ).rejects.toThrow(/at most 20/);
  });
});

describe("ToolSecrets", () => {
  it("gives a tool its variables, records the use, and the redactor learns the value", async () => {
    await putSecret(t.db, ring, { name: "deploy/token", value: VALUE, actor: null });
    const secrets = new ToolSecrets({ db: t.db, keyring: ring });
    expect(secrets.redact(`x ${VALUE}`)).toBe(`x ${VALUE}`);
    expect(await secrets.environment(["deploy/token"])).toEqual({ DEPLOY_TOKEN: VALUE });
    expect((await listSecrets(t.db)).find((s) => s.name === "deploy/token")?.lastUsedAt).not.toBeNull();
    expect(secrets.redact({ out: `x ${VALUE}` })).toEqual({ out: "x [secret:deploy/token]" });
  });

  it("refresh learns the run's secrets and every provider key without recording a use", async () => {
    await putSecret(t.db, ring, { name: "DEPLOY_TOKEN", value: VALUE, actor: null });
    const secrets = new ToolSecrets({ db: t.db, keyring: ring });
    await secrets.refresh(["DEPLOY_TOKEN"]);
    expect(secrets.redact(`${VALUE} ${PROVIDER_KEY}`)).toBe("[secret:DEPLOY_TOKEN] [secret:provider/openai/api-key]");
    expect((await listSecrets(t.db)).every((s) => s.lastUsedAt === null)).toBe(true);
    // A replaced value is learnt on the next refresh; the old one stays redacted.
    await putSecret(t.db, ring, { name: "DEPLOY_TOKEN", value: "dpl-rotated-000000", actor: null });
    await secrets.refresh(["DEPLOY_TOKEN"]);
    expect(secrets.redact(`${VALUE} dpl-rotated-000000`)).toBe("[secret:DEPLOY_TOKEN] [secret:DEPLOY_TOKEN]");
  });

  it("never hands out a provider key, and a secret deleted since launch is a clear error", async () => {
    const secrets = new ToolSecrets({ db: t.db, keyring: ring });
    await expect(secrets.environment(["provider/openai/api-key"])).rejects.toThrow(/never given to tools/);
    await expect(secrets.environment(["GONE"])).rejects.toThrow(
      'The secret "GONE" this run was given cannot be used: No secret named "GONE"',
    );
  });
});

describe("managing secrets", () => {
  it("lists names and dates without provider keys or values; add, replace and delete are audited without the value", async () => {
    const admin = await t.db.user.create({ data: { email: "ada@test.local", name: "Ada", passwordHash: "x", role: "admin" } });
    const actor = { ...ADMIN, userId: admin.id };
    const created = await setToolSecret(t.db, ring, { name: "deploy/token", value: VALUE }, actor);
    expect(created).toMatchObject({
      name: "deploy/token",
      env: "DEPLOY_TOKEN",
      createdBy: { id: admin.id, name: "Ada", email: "ada@test.local" },
      lastUsedAt: null,
    });
    await setToolSecret(t.db, ring, { name: "deploy/token", value: `${VALUE}-2` }, actor);
    expect(await getSecretValue(t.db, ring, "deploy/token", { touch: false })).toBe(`${VALUE}-2`);
    const list = await listToolSecrets(t.db);
    expect(list.map((s) => s.name)).toEqual(["deploy/token"]);
    expect(JSON.stringify(list)).not.toContain(VALUE);
    await removeToolSecret(t.db, "deploy/token", actor);
    expect(await listToolSecrets(t.db)).toEqual([]);
    const audit = await t.db.auditEntry.findMany({ orderBy: { id: "asc" } });
    expect(audit.map((a) => [a.kind, a.subject, a.actorId, a.channel])).toEqual([
      ["secret.created", "deploy/token", admin.id, "web"],
      ["secret.updated", "deploy/token", admin.id, "web"],
      ["secret.deleted", "deploy/token", admin.id, "web"],
    ]);
    expect(JSON.stringify(audit)).not.toContain(VALUE);
  });

  it("refuses bad names, empty values, provider keys and missing secrets, changing nothing", async () => {
    const before = await t.db.secret.findMany();
    for (const [input, message] of [
      [{ name: "has space", value: "v" }, /A secret name starts with a letter/],
      [{ name: "", value: "v" }, /name is required/],
      [{ name: "OK_NAME", value: "" }, /value is required/],
      [{ name: "provider/openai/api-key", value: "v" }, /Settings → Models/],
      [{ name: "PATH", value: "v" }, /replace the shell's PATH/],
    ] as const) {
      await expect(setToolSecret(t.db, ring, input, ADMIN)).rejects.toThrow(message);
    }
    await expect(removeToolSecret(t.db, "provider/openai/api-key", ADMIN)).rejects.toThrow(/Settings → Models/);
    await expect(removeToolSecret(t.db, "NOPE", ADMIN)).rejects.toBeInstanceOf(SecretNotFoundError);
    expect(await t.db.secret.findMany()).toEqual(before);
    expect(await t.db.auditEntry.count()).toBe(0);
  });
});

describe("an unreadable secret", () => {
  it("is reported once, not on every refresh, and the others are still learnt", async () => {
    await putSecret(t.db, memoryKeyring(), { name: "provider/other/api-key", value: "sk-sealed-with-another-key", actor: null });
    const errors: string[] = [];
    const secrets = new ToolSecrets({ db: t.db, keyring: ring, log: { error: (m) => errors.push(m) } });
    await secrets.refresh([]);
    await secrets.refresh([]);
    expect(errors).toEqual(['The secret "provider/other/api-key" cannot be read with this server\'s key; it cannot be redacted either']);
    expect(secrets.redact(PROVIDER_KEY)).toBe("[secret:provider/openai/api-key]");
  });
});
