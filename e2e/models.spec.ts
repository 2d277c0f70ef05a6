// Settings › Models against fake OpenAI-compatible servers started here: an
// admin adds a provider (the server's refusal under its field, a wrong key
// refused by Test, the right one listing the models), adds a model from that
// list, and a run on it streams the fake's text into the timeline; the key is
// shown only masked. Then routing: a code rule ordered in the page, a run on
// auto whose first model answers 429 with Retry-After fails over to the second
// and the timeline says so. Providers and rules are removed afterwards: the
// other specs expect only the scripted models.
import net from "node:net";
import { expect, test, type Page } from "@playwright/test";
import { startFakeOpenAI, type FakeServer } from "@/server/models";
import { login } from "./fixtures";

const KEY = "sk-e2e-RIGHT-key-0123456789abcdef";
const WRONG_KEY = "sk-e2e-WRONG-key-fedcba9876543210";
const servers: FakeServer[] = [];

async function trpc(page: Page, procedure: string, input: unknown) {
  const res = await page.request.post(`/api/trpc/${procedure}`, { data: { json: input } });
  expect(res.ok(), `${procedure}: ${await res.text()}`).toBe(true);
}

test.afterEach(async ({ page }) => {
  await page.request.post("/api/trpc/models.setRouting", { data: { json: { rules: {}, pools: [], teamPools: {} } } });
  const res = await page.request.get("/api/trpc/models.providers");
  const providers = res.ok() ? ((await res.json()) as { result: { data: { json: Array<{ name: string }> } } }).result.data.json : [];
  for (const p of providers.filter((p) => p.name.startsWith("e2e-"))) {
    await page.request.post("/api/trpc/models.deleteProvider", { data: { json: { name: p.name } } });
  }
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function openModelsPage(page: Page) {
  await page.getByTestId("nav-settings").click();
  await page
    .getByTestId("settings-nav")
    .getByRole("link", { name: /Models/ })
    .click();
  await expect(page).toHaveURL(/\/settings\/models$/);
  await expect(page.getByRole("heading", { name: "Models", level: 1 })).toBeVisible();
}

async function startRun(page: Page, model: string, complexity?: string): Promise<void> {
  await page.goto("/runs");
  await page.getByTestId("new-run-button").click();
  await page.getByTestId("agent-select").selectOption("demo-coder");
  await expect(page.getByTestId("goal-input")).not.toHaveValue("");
  // Nothing picked: the agent's own scripted model, labelled as such.
  await expect(page.getByTestId("model-select")).toHaveValue("");
  await expect(page.getByTestId("model-hint").getByTestId("scripted-badge")).toBeVisible();
  await page.getByTestId("model-select").selectOption(model);
  await expect(page.getByTestId("model-hint").getByTestId("scripted-badge")).toHaveCount(0);
  if (complexity) await page.getByTestId("complexity-input").fill(complexity);
  await page.getByTestId("start-run").click();
  await page.waitForURL(/\/runs\/[^/?#]+$/);
}

test("add a provider, Test it, add a model from its list; a run on it streams the fake's text; the key stays masked", async ({ page }) => {
  test.setTimeout(150_000);
  const fake = await startFakeOpenAI({ apiKey: KEY, models: ["e2e-llama-small", "e2e-llama-large"] });
  servers.push(fake);
  await login(page);
  await openModelsPage(page);
  const empty = page.getByTestId("providers-section").getByTestId("empty-state");
  await expect(empty.getByRole("heading")).toHaveText("No providers yet");
  await expect(empty).toContainText("Runs use the built-in scripted demo model, which calls no model.");

  await page.getByTestId("add-provider").click();
  const dialog = page.getByTestId("provider-dialog");
  await expect(dialog).toBeVisible();
  await dialog.getByTestId("provider-name").fill("e2e-local");
  await expect(dialog.getByTestId("provider-kind")).toHaveValue("openai-compatible");
  await expect(dialog.getByTestId("provider-kind-hint")).toContainText("http://localhost:11434/v1");
  // No base URL: the server's refusal shows under the field (Enter submits).
  await dialog.getByTestId("provider-name").press("Enter");
  await expect(dialog.getByTestId("provider-baseUrl-error")).toContainText("needs a base URL");

  await dialog.getByTestId("provider-base-url").fill(fake.baseUrl);
  await dialog.getByTestId("provider-api-key").fill(WRONG_KEY);
  await dialog.getByTestId("provider-form-test").click();
  const formResult = dialog.getByTestId("provider-test-result");
  await expect(formResult).toHaveAttribute("data-ok", "false");
  await expect(formResult.getByTestId("provider-test-headline")).toContainText("the key was refused · HTTP 401");
  // The fake quotes the key it was sent; Rein scrubs it from the message.
  await expect(formResult).not.toContainText(WRONG_KEY);

  await dialog.getByTestId("provider-api-key").fill(KEY);
  await expect(formResult).toHaveCount(0);
  await dialog.getByTestId("provider-form-test").click();
  await expect(formResult.getByTestId("provider-test-headline")).toContainText("Works — 2 models");
  await expect(formResult.getByTestId("test-model")).toHaveText(["e2e-llama-small", "e2e-llama-large"]);
  await dialog.getByTestId("provider-api-key").press("Enter");
  await expect(dialog).toBeHidden();

  // Saved: the key only masked, and the Test's list kept under the provider with an Add per model.
  const row = page.locator('[data-testid="provider-row"][data-provider="e2e-local"]');
  await expect(row.getByTestId("provider-key")).toHaveText("sk-…cdef");
  await expect(row).toContainText("OpenAI-compatible");
  expect(await page.content()).not.toContain(KEY);
  const listed = page.getByTestId("providers-section").getByTestId("provider-test-result");
  await expect(listed.getByTestId("test-model")).toHaveCount(2);

  // Add the small model from the list: the form comes filled in; a strength of 3 is refused under its field, before sending.
  await listed.locator('[data-testid="test-model"][data-model="e2e-llama-small"]').getByTestId("test-model-add").click();
  const modelDialog = page.getByTestId("model-dialog");
  await expect(modelDialog.getByTestId("model-provider")).toHaveValue("e2e-local");
  await expect(modelDialog.getByTestId("model-modelId")).toHaveValue("e2e-llama-small");
  await expect(modelDialog.getByTestId("model-family")).toHaveValue("llama");
  await modelDialog.getByTestId("model-strength").fill("3");
  await modelDialog.getByTestId("model-inputPerMTok").fill("1");
  await modelDialog.getByTestId("model-outputPerMTok").fill("2");
  await modelDialog.getByTestId("model-save").click();
  await expect(modelDialog.getByTestId("model-strength-error")).toHaveText("must be a number from 0 to 1, e.g. 0.7");
  await modelDialog.getByTestId("model-strength").fill("0.8");
  await modelDialog.getByTestId("model-strength").press("Enter");
  await expect(modelDialog).toBeHidden();
  const modelRow = page.locator('[data-testid="model-row"][data-model="e2e-local/e2e-llama-small"]');
  await expect(modelRow.getByTestId("model-prices")).toHaveText("$1 / $2");
  await expect(listed.locator('[data-testid="test-model"][data-model="e2e-llama-small"]')).toContainText("added");
  await expect(row.getByTestId("provider-model-count")).toHaveText("1");

  // Testing the saved provider uses the stored key.
  await row.getByTestId("provider-test").click();
  await expect(listed.getByTestId("provider-test-headline")).toContainText("Works — 2 models");

  await page.reload();
  await expect(row.getByTestId("provider-key")).toHaveText("sk-…cdef");
  expect(await page.content()).not.toContain(KEY);

  // A run on the model: the fake's reply streams in small pieces.
  const text = "Hello from the fake model, streamed in small pieces so the timeline shows the text growing as it arrives.";
  fake.reset();
  fake.enqueue({ type: "reply", reply: { text, chunkSize: 3, delayMs: 150 } });
  await startRun(page, "e2e-local/e2e-llama-small");
  const streaming = page.getByTestId("streaming-turn");
  await expect(streaming).toBeVisible({ timeout: 30_000 });
  const partial = ((await streaming.locator(".turn-text").textContent()) ?? "").trim();
  expect(text).toContain(partial);
  await expect(page.getByTestId("model-turn-text")).toHaveText(text, { timeout: 30_000 });
  await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 30_000 });
  await expect(page.getByTestId("streaming-turn")).toHaveCount(0);
  await expect(page.getByTestId("run-model").getByTestId("scripted-badge")).toHaveCount(0);

  const call = fake.requests.find((r) => r.path === "/v1/chat/completions");
  expect(call?.body.model).toBe("e2e-llama-small");
  expect(call?.body.stream).toBe(true);
  expect(call?.headers.authorization).toBe(`Bearer ${KEY}`);

  const why = page.getByTestId("model-turn").getByTestId("routing-why");
  await why.locator("summary").click();
  await expect(why.getByTestId("routing-reason")).toHaveText("e2e-local/e2e-llama-small was named by the run or its agent");

  // Deleting the provider asks first, then takes its model along.
  await openModelsPage(page);
  await row.getByTestId("provider-delete").click();
  const confirm = page.getByTestId("providers-section").getByTestId("confirm-dialog");
  await expect(confirm).toContainText("Its 1 model is deleted with it");
  await confirm.getByTestId("confirm-dialog-confirm").click();
  await expect(page.getByTestId("providers-section").getByTestId("empty-state")).toBeVisible();
  await expect(page.getByTestId("models-section").getByTestId("empty-state")).toBeVisible();
});

test("a code rule ordered in the page; the first model answers 429 and the run fails over to the second", async ({ page }) => {
  test.setTimeout(120_000);
  const busy = await startFakeOpenAI({ models: ["busy-model"] });
  const spare = await startFakeOpenAI({ models: ["spare-model"] });
  servers.push(busy, spare);
  await login(page);
  await trpc(page, "models.createProvider", { name: "e2e-busy", kind: "openai-compatible", baseUrl: busy.baseUrl });
  await trpc(page, "models.createProvider", { name: "e2e-spare", kind: "openai-compatible", baseUrl: spare.baseUrl, selfHosted: true });
  await trpc(page, "models.save", { provider: "e2e-busy", modelId: "busy-model", family: "busy" });
  await trpc(page, "models.save", { provider: "e2e-spare", modelId: "spare-model", family: "spare" });

  // The code rule: added spare first, then busy moved above it.
  await openModelsPage(page);
  const rule = page.locator('[data-testid="routing-rule"][data-task-class="code"]');
  await rule.getByTestId("candidates-code-pick").selectOption("e2e-spare/spare-model");
  await rule.getByTestId("candidates-code-add").click();
  await rule.getByTestId("candidates-code-pick").selectOption("e2e-busy/busy-model");
  await rule.getByTestId("candidates-code-add").click();
  const items = rule.getByTestId("candidates-code-item").locator("code");
  await expect(items).toHaveText(["e2e-spare/spare-model", "e2e-busy/busy-model"]);
  await rule.getByRole("button", { name: "Move e2e-busy/busy-model up" }).click();
  await expect(items).toHaveText(["e2e-busy/busy-model", "e2e-spare/spare-model"]);
  await expect(page.getByTestId("routing-dirty")).toBeVisible();
  await page.getByTestId("routing-save").click();
  await expect(page.getByTestId("routing-saved")).toBeVisible();
  await page.reload();
  await expect(items).toHaveText(["e2e-busy/busy-model", "e2e-spare/spare-model"]);

  busy.enqueue({ type: "status", status: 429, headers: { "retry-after": "7" }, message: "Rate limit reached for busy-model" });
  spare.enqueue({ type: "reply", reply: { text: "The spare model took over.", chunkSize: 4, delayMs: 20 } });
  await startRun(page, "auto", "0.3");

  const failover = page.getByTestId("model-error").getByTestId("failover-text");
  await expect(failover).toHaveText(
    "e2e-busy/busy-model answered 429 (retry after 7 s) — cooled down 7 s, failing over to e2e-spare/spare-model",
    { timeout: 30_000 },
  );
  await expect(page.getByTestId("model-turn-text")).toHaveText("The spare model took over.", { timeout: 30_000 });
  await expect(page.getByTestId("run-status")).toHaveText("succeeded", { timeout: 30_000 });
  // The header names the model that answered, and says the run asked for auto.
  await expect(page.getByTestId("run-model-answered").locator(".model-label")).toHaveText(["e2e-spare/spare-model"]);
  await expect(page.getByTestId("run-model-asked")).toHaveText("asked for auto");

  const why = page.getByTestId("model-turn").getByTestId("routing-why");
  await expect(why.locator("summary")).toContainText("answered after 1 failed attempt on other models");
  await why.locator("summary").click();
  await expect(why.getByTestId("routing-reason")).toHaveText("e2e-busy/busy-model is the first code candidate that can serve the call");
  await expect(why).toContainText("Complexity: 0.3");
  await expect(why).toContainText("e2e-busy/busy-model → e2e-spare/spare-model");
  expect(busy.requests.filter((r) => r.path === "/v1/chat/completions")).toHaveLength(1);
  expect(spare.requests.filter((r) => r.path === "/v1/chat/completions")).toHaveLength(1);
});

test("a model nothing answers for: the run fails with the reason in words, said once on its page", async ({ page }) => {
  test.setTimeout(90_000);
  // A port nothing listens on: taken, then given back.
  const port = await new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, "127.0.0.1", () => {
      const { port: p } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(p));
    });
  });
  await login(page);
  await trpc(page, "models.createProvider", { name: "e2e-dead", kind: "openai-compatible", baseUrl: `http://127.0.0.1:${port}/v1` });
  await trpc(page, "models.save", { provider: "e2e-dead", modelId: "dead-model", family: "dead" });
  await startRun(page, "e2e-dead/dead-model");

  await expect(page.getByTestId("run-status")).toHaveText("failed", { timeout: 30_000 });
  const error = page.getByTestId("run-error");
  await expect(error).toContainText(`Nothing answers at http://127.0.0.1:${port}: is the server running`);
  await expect(error).toContainText("MODEL_ERROR");
  // The timeline points at it instead of repeating it.
  await expect(page.getByTestId("model-error-above")).toBeVisible();
  await expect(page.getByTestId("state-error-above")).toContainText("MODEL_ERROR");
  await expect(page.getByText(/Nothing answers at/)).toHaveCount(1);

  // Settings › Models says auto leans away from it, and why.
  await openModelsPage(page);
  const failing = page.locator('[data-testid="model-row"][data-model="e2e-dead/dead-model"]').getByTestId("model-failing");
  await expect(failing).toContainText(/failed \d+ times? in a row/);
  await expect(failing).toContainText("Auto tries it only after the other models until");
  await expect(failing).toContainText(`Nothing answers at http://127.0.0.1:${port}`);
  await trpc(page, "models.deleteProvider", { name: "e2e-dead" });
});
