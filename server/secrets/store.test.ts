// Secrets in a real SQLite database: sealed at rest, listed without values.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/test/helpers/db";
import {
  SecretDecryptError,
  SecretNotFoundError,
  SecretValidationError,
  deleteSecret,
  getSecretValue,
  listSecrets,
  memoryKeyring,
  putSecret,
} from "./index";

let t: TestDb;
const ring = memoryKeyring();
const VALUE = "sk-test-0123456789abcdefSECRET";

beforeEach(async () => {
  t = await createTestDb();
});
afterEach(async () => {
  await t.cleanup();
});

describe("secret store", () => {
  it("round-trips a value and keeps only ciphertext in the table", async () => {
    const summary = await putSecret(t.db, ring, { name: "openai", value: VALUE, actor: "user-1" });
    expect(summary).toMatchObject({ name: "openai", keyId: ring.current.id, createdById: "user-1", lastUsedAt: null });
    expect(await getSecretValue(t.db, ring, "openai")).toBe(VALUE);
    const rows = await t.db.$queryRawUnsafe<Array<Record<string, unknown>>>(`SELECT * FROM "Secret"`);
    expect(JSON.stringify(rows)).not.toContain(VALUE);
    expect(JSON.stringify(rows)).not.toContain(Buffer.from(VALUE).toString("base64").slice(0, 16));
    expect(rows[0].ciphertext).toMatch(/^v1\./);
  });

  it("records when a value was last used", async () => {
    await putSecret(t.db, ring, { name: "k", value: VALUE, actor: null });
    const before = new Date(Date.now() - 1);
    await getSecretValue(t.db, ring, "k");
    const [listed] = await listSecrets(t.db);
    expect(listed.lastUsedAt).not.toBeNull();
    expect(listed.lastUsedAt!.getTime()).toBeGreaterThanOrEqual(before.getTime());
  });

  it("replacing a value keeps the creator and changes the ciphertext", async () => {
    await putSecret(t.db, ring, { name: "k", value: "first-value", actor: "alice" });
    const before = await t.db.secret.findUniqueOrThrow({ where: { name: "k" } });
    await putSecret(t.db, ring, { name: "k", value: "second-value", actor: "bob" });
    const after = await t.db.secret.findUniqueOrThrow({ where: { name: "k" } });
    expect(after.ciphertext).not.toBe(before.ciphertext);
    expect(after.createdById).toBe("alice");
    expect(await getSecretValue(t.db, ring, "k")).toBe("second-value");
    expect(await listSecrets(t.db)).toHaveLength(1);
  });

  it("listSecrets returns names and dates, never values or ciphertext", async () => {
    await putSecret(t.db, ring, { name: "b", value: VALUE + "b", actor: null });
    await putSecret(t.db, ring, { name: "a", value: VALUE + "a", actor: "u" });
    const list = await listSecrets(t.db);
    expect(list.map((s) => s.name)).toEqual(["a", "b"]);
    for (const s of list) expect(Object.keys(s).sort()).toEqual(["createdAt", "createdById", "keyId", "lastUsedAt", "name", "updatedAt"]);
    expect(JSON.stringify(list)).not.toContain(VALUE);
    expect(JSON.stringify(list)).not.toContain("v1.");
  });

  it("a database opened with the wrong key refuses with a clear error, and loses nothing", async () => {
    await putSecret(t.db, ring, { name: "k", value: VALUE, actor: null });
    const other = memoryKeyring();
    const err = await getSecretValue(t.db, other, "k").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SecretDecryptError);
    expect((err as SecretDecryptError).reason).toBe("wrong_key");
    expect((err as Error).message).toContain(`was encrypted with key ${ring.current.id}`);
    expect(await getSecretValue(t.db, ring, "k")).toBe(VALUE);
  });

  it("a tampered row is refused, not returned as garbage", async () => {
    await putSecret(t.db, ring, { name: "k", value: VALUE, actor: null });
    const row = await t.db.secret.findUniqueOrThrow({ where: { name: "k" } });
    const parts = row.ciphertext.split(".");
    const data = Buffer.from(parts[3], "base64url");
    data[0] ^= 0xff;
    parts[3] = data.toString("base64url");
    await t.db.secret.update({ where: { name: "k" }, data: { ciphertext: parts.join(".") } });
    await expect(getSecretValue(t.db, ring, "k")).rejects.toMatchObject({ name: "SecretDecryptError", reason: "tampered" });
  });

  it("a row copied onto another name is refused", async () => {
    await putSecret(t.db, ring, { name: "a", value: "value-of-a", actor: null });
    await putSecret(t.db, ring, { name: "b", value: "value-of-b", actor: null });
    const a = await t.db.secret.findUniqueOrThrow({ where: { name: "a" } });
    await t.db.secret.update({ where: { name: "b" }, data: { ciphertext: a.ciphertext } });
    await expect(getSecretValue(t.db, ring, "b")).rejects.toMatchObject({ reason: "tampered" });
  });

  it("deletes, and a missing secret is a clear error", async () => {
    await putSecret(t.db, ring, { name: "k", value: VALUE, actor: null });
    expect(await deleteSecret(t.db, "k")).toBe(true);
    expect(await deleteSecret(t.db, "k")).toBe(false);
    await expect(getSecretValue(t.db, ring, "k")).rejects.toBeInstanceOf(SecretNotFoundError);
    await expect(getSecretValue(t.db, ring, "k")).rejects.toThrow('No secret named "k"');
  });

  it("refuses bad names and values, storing nothing", async () => {
    for (const name of ["", "1abc", "has space", "x".repeat(129), "semi;colon"]) {
      await expect(putSecret(t.db, ring, { name, value: VALUE, actor: null })).rejects.toBeInstanceOf(SecretValidationError);
    }
    await expect(putSecret(t.db, ring, { name: "ok", value: "", actor: null })).rejects.toThrow(/non-empty value/);
    await expect(putSecret(t.db, ring, { name: "ok", value: "x".repeat(64 * 1024 + 1), actor: null })).rejects.toThrow(
      /larger than 64 KiB/,
    );
    expect(await listSecrets(t.db)).toEqual([]);
    for (const name of ["OPENAI_API_KEY", "provider/openai", "team.a:key-1", "_x"]) {
      await putSecret(t.db, ring, { name, value: VALUE, actor: null });
    }
    expect(await listSecrets(t.db)).toHaveLength(4);
  });
});
