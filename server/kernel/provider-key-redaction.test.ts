// A provider key is redacted from the moment an admin saves it
// (docs/secrets.md#redaction-where-the-value-is-hidden): the model catalog
// hands it to the redactor on every reload, so an error quoting it in the same
// second never reaches the event log.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { createRun, event } from "@/server/kernel";

let tk: TestKernel;
const KEY = "sk-just-saved-0123456789abcdef";

beforeAll(async () => {
  tk = await createTestKernel({ models: true, secrets: true });
});
afterAll(async () => tk?.cleanup());

describe("provider keys and the redactor", () => {
  it("redacts a key saved a moment ago from the next event, and a replaced key's new value too", async () => {
    // The run's events have just made the redactor look at the secrets, so only the catalog can tell it about the key now.
    const run = await createRun(tk.kernel, { goal: "g", agent: "demo-coder", scenario: [{ text: "ok" }] }, tk.actors.operator);
    await tk.settle(run.id);
    const admin = { userId: tk.users.admin, name: "admin" };
    await tk.models!.admin.createProvider({ name: "fresh", kind: "openai", apiKey: KEY }, admin);
    await tk.kernel.store.appendEvents(run.id, [
      event("run.resumed", { fromCheckpoint: 0, step: 0, reason: `provider said: bad key ${KEY}` }),
    ]);
    const NEW_KEY = "sk-rotated-9876543210fedcba";
    await tk.models!.admin.updateProvider({ name: "fresh", apiKey: NEW_KEY }, admin);
    await tk.kernel.store.appendEvents(run.id, [event("run.resumed", { fromCheckpoint: 0, step: 0, reason: `and now ${NEW_KEY}` })]);
    const log = JSON.stringify(await tk.kernel.store.listEvents(run.id, 0, 1000));
    expect(log).not.toContain(KEY);
    expect(log).not.toContain(NEW_KEY);
    expect(log).toContain("provider said: bad key [secret:provider/fresh/api-key]");
    expect(log).toContain("and now [secret:provider/fresh/api-key]");
  });
});
