// textSearch: what a person types finds the same rows on SQLite and on
// PostgreSQL (REIN_TEST_DATABASE=postgres runs this file there).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "@/test/helpers/db";
import { textSearch } from "@/server/db";

let t: TestDb;
beforeEach(async () => {
  t = await createTestDb();
  for (const subject of ["Deploy the API", "deploy the api", "rollback"]) {
    await t.db.auditEntry.create({ data: { kind: "test", subject } });
  }
});
afterEach(async () => t.cleanup());

async function find(text: string): Promise<string[]> {
  const rows = await t.db.auditEntry.findMany({
    where: { subject: textSearch(t.db, text) },
    orderBy: { id: "asc" },
    select: { subject: true },
  });
  return rows.map((r) => r.subject ?? "");
}

describe("textSearch", () => {
  it("ignores the case of ASCII letters", async () => {
    expect(await find("API")).toEqual(["Deploy the API", "deploy the api"]);
    expect(await find("deploy THE")).toEqual(["Deploy the API", "deploy the api"]);
    expect(await find("ROLLBACK")).toEqual(["rollback"]);
    expect(await find("nothing")).toEqual([]);
  });
});
