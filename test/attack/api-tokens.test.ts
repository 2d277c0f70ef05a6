// Attack suite: what an API token can do to API tokens. A token is a
// program's key, often short-lived and kept where it can leak (a CI log, a
// laptop). Whoever holds one must not turn it into a key that outlives it:
// a token cannot make another token, so revoking or letting it expire ends
// the access it gave. Only a person logged in to Rein (or the CLI on the
// server) makes tokens.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callerFor } from "@/test/helpers/services";
import { authenticateToken, createApiToken, type Actor } from "@/server/identity";
import { createTestKernel, type TestKernel } from "../helpers/kernel";
import { trpcError } from "../helpers/trpc";

let tk: TestKernel;

const caller = (actor: Actor) => callerFor(tk, actor);
const tokensOf = (userId: string) => tk.t.db.apiToken.count({ where: { userId } });

beforeAll(async () => {
  tk = await createTestKernel();
}, 60_000);

afterAll(async () => tk?.cleanup());

describe("a leaked API token", () => {
  it("cannot make another token, with or without an expiry, and none is stored", async () => {
    const owner = tk.actors.operator;
    const { token } = await createApiToken(tk.t.db, { userId: owner.userId, name: "ci", expiresInDays: 1 });
    const program = (await authenticateToken(tk.t.db, token))!;
    expect(program.via).toBe("token");
    const before = await tokensOf(owner.userId);
    for (const input of [{ name: "forever" }, { name: "ten years", expiresInDays: 3650 }]) {
      const err = await trpcError(caller(program).identity.createToken(input));
      expect(err.code).toBe("FORBIDDEN");
      expect(err.message).toMatch(/logged in/);
    }
    expect(await tokensOf(owner.userId)).toBe(before);
  });

  it("an admin's token cannot either", async () => {
    const { token } = await createApiToken(tk.t.db, { userId: tk.actors.admin.userId, name: "deploy-bot" });
    const program = (await authenticateToken(tk.t.db, token))!;
    const before = await tokensOf(tk.actors.admin.userId);
    expect((await trpcError(caller(program).identity.createToken({ name: "backdoor" }))).code).toBe("FORBIDDEN");
    expect(await tokensOf(tk.actors.admin.userId)).toBe(before);
  });

  it("a person logged in still makes, lists and revokes their tokens; a token may revoke one", async () => {
    const person = tk.actors.viewer;
    expect(person.via).toBe("session");
    const made = await caller(person).identity.createToken({ name: "laptop", expiresInDays: 30 });
    expect(made.token).toMatch(/^rein_/);
    const program = (await authenticateToken(tk.t.db, made.token))!;
    expect((await caller(program).identity.tokens()).map((t) => t.id)).toContain(made.id);
    // Revoking only takes access away, so a program may rotate itself out.
    await caller(program).identity.revokeToken({ id: made.id });
    expect(await authenticateToken(tk.t.db, made.token)).toBeNull();
  });
});
