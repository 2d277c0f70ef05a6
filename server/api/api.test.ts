// tRPC through createCaller on a real SQLite database, with the default kernel
// (no anonymous call reaches any procedure; roles are ranked:
// docs/security.md#authentication-roles-and-teams).
// Every procedure of the router must have a sample input below, so a new
// procedure cannot skip the access checks.
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestKernel, type TestKernel, SILENT_LOG } from "@/test/helpers/kernel";
import { authenticateToken, createApiToken, createUser, loadActor, roleAtLeast, ROLES, type Actor, type Role } from "@/server/identity";
import { createRun } from "@/server/kernel";
import { agentDepsOf, createAgent } from "@/server/agents";
import { addItem, createDataset } from "@/server/evals";
import { ModelAdmin, ModelCatalog } from "@/server/models";
import { McpServers } from "@/server/mcp-client";
import { Webhooks } from "@/server/channels";
import { DEFAULT_LIMITS, PodPool, probeSandbox } from "@/server/compute";
import { Improve } from "@/server/improve";
import { memoryKeyring } from "@/server/secrets";
import { Retention } from "@/server/retention";
import { defaultTierSettings } from "@/server/tiers";
import { appRouter } from "./root";
import type { Meta } from "./trpc";
import { trpcError } from "@/test/helpers/trpc";
import { callerFor, type ServiceOverrides } from "@/test/helpers/services";

interface Fixture {
  /** A demo-coder run of the operator that has succeeded. */
  finishedRunId: string;
  /** A run of another team. */
  otherTeamRunId: string;
  /** A user whose role the samples may change. */
  spareUserId: string;
  /** The team every test user is in. */
  defaultTeamId: string;
  /** A dataset of the default team with an item item-1. */
  datasetId: string;
}

/** An agent spec of the default team the samples create, save, try and import. */
const sampleSpec = (fx: Fixture, name: string) => ({
  name,
  instructions: "Say hello.",
  model: "scripted/demo-coder",
  tools: [],
  teamId: fx.defaultTeamId,
});

/** A SKILL.md of the default team the skills samples check and save. */
const sampleSkill = (fx: Fixture) =>
  `---\nname: sample-skill\ndescription: A sample skill for the access checks; use it when a test says so.\nscope:\n  teams: [${fx.defaultTeamId}]\n---\nSay hello.\n`;

let seq = 0;
const SAMPLES: Record<string, (fx: Fixture) => unknown> = {
  "runs.list": () => ({}),
  "runs.get": (fx) => ({ id: fx.finishedRunId }),
  "runs.events": (fx) => ({ id: fx.finishedRunId, after: 0 }),
  "runs.exportScenario": (fx) => ({ id: fx.finishedRunId }),
  "runs.setPinned": (fx) => ({ id: fx.finishedRunId, pinned: true }),
  "runs.create": () => ({ goal: "A sample run", agent: "demo-coder", scenario: [{ text: "Nothing to do." }] }),
  "runs.pause": (fx) => ({ id: fx.finishedRunId }),
  "runs.resume": (fx) => ({ id: fx.finishedRunId }),
  "runs.cancel": (fx) => ({ id: fx.finishedRunId }),
  "runs.cancelMany": (fx) => ({ ids: [fx.finishedRunId] }),
  "runs.setTags": (fx) => ({ id: fx.finishedRunId, tags: ["sample"] }),
  // A message or a re-run would continue or copy the shared finished run: a run nobody has (NOT_FOUND once the role passes).
  "runs.say": () => ({ id: "no-such-run", text: "hello" }),
  "runs.retry": (fx) => ({ id: fx.finishedRunId }),
  "runs.rerun": () => ({ id: "no-such-run" }),
  "runs.lineage": (fx) => ({ id: fx.finishedRunId }),
  // A fork of the shared finished run would be a new run: a run nobody has (NOT_FOUND once the role passes).
  "runs.fork": () => ({ id: "no-such-run", step: 1 }),
  "runs.compare": (fx) => ({ a: fx.finishedRunId, b: fx.finishedRunId }),
  "agents.list": () => undefined,
  "agents.get": () => ({ name: "demo-coder" }),
  "agents.versions": () => ({ name: "demo-coder" }),
  "agents.diff": () => ({ name: "demo-coder", from: 1, to: 1 }),
  "agents.tools": () => undefined,
  "agents.validate": (fx) => ({ spec: sampleSpec(fx, "sample-check") }),
  "agents.create": (fx) => ({ spec: sampleSpec(fx, `sample-new-${++seq}`) }),
  "agents.save": (fx) => ({ name: "sample-agent", spec: sampleSpec(fx, "sample-agent"), changeNote: `sample ${++seq}` }),
  "agents.rollback": () => ({ name: "sample-agent", version: 1 }),
  "agents.archive": () => ({ name: "sample-archived" }),
  "agents.unarchive": () => ({ name: "sample-archived" }),
  "agents.copy": () => ({ from: "demo-coder", name: `sample-copy-${++seq}` }),
  "agents.tryDraft": (fx) => ({ spec: sampleSpec(fx, "sample-agent"), goal: "Try it" }),
  "agents.exportYaml": () => ({ name: "demo-coder" }),
  "agents.importYaml": (fx) => ({
    yaml: `name: sample-import-${++seq}\nmodel: scripted/demo-coder\ninstructions: Say hello.\nteamId: ${fx.defaultTeamId}\n`,
  }),
  "identity.me": () => undefined,
  "identity.tokens": () => undefined,
  "identity.createToken": () => ({ name: `sample token ${++seq}` }),
  "identity.revokeToken": () => ({ id: "no-such-token" }),
  "identity.mailPreference": () => undefined,
  "identity.setMailPreference": () => ({ mailRequests: "decide" }),
  "users.list": () => undefined,
  "users.create": () => ({ email: `sample-${++seq}@test.local`, password: "sample-password", role: "viewer" }),
  "users.setRole": (fx) => ({ id: fx.spareUserId, role: "viewer" }),
  "users.disable": () => ({ id: "no-such-user" }),
  "users.enable": () => ({ id: "no-such-user" }),
  "users.resetLink": () => ({ id: "no-such-user" }),
  "invitations.list": () => undefined,
  "invitations.create": () => ({ email: `invitee-${++seq}@test.local`, role: "viewer" }),
  "invitations.revoke": () => ({ id: "no-such-invitation" }),
  "invitations.inspect": () => ({ token: "not-a-token" }),
  "invitations.accept": () => ({ token: "not-a-token", password: "long-enough-password" }),
  "teams.list": () => undefined,
  "teams.get": () => ({ id: "no-such-team" }),
  "teams.create": () => ({ name: `Sample team ${++seq}` }),
  "teams.rename": () => ({ id: "no-such-team", name: "Renamed" }),
  "teams.archive": () => ({ id: "no-such-team" }),
  "teams.unarchive": () => ({ id: "no-such-team" }),
  "teams.addMember": () => ({ teamId: "no-such-team", email: "viewer@test.local", role: "viewer" }),
  "teams.setMemberRole": () => ({ teamId: "no-such-team", userId: "no-such-user", role: "viewer" }),
  "teams.removeMember": () => ({ teamId: "no-such-team", userId: "no-such-user" }),
  "system.status": () => undefined,
  "system.processes": () => undefined,
  "files.tree": (fx) => ({ runId: fx.finishedRunId }),
  "files.read": (fx) => ({ runId: fx.finishedRunId, path: "src/fizzbuzz.mjs" }),
  "files.diff": (fx) => ({ runId: fx.finishedRunId }),
  "files.save": (fx) => ({ runId: fx.finishedRunId, path: "notes/sample.md", content: `sample ${++seq}\n` }),
  "policy.active": () => undefined,
  "policy.versions": () => undefined,
  "policy.grammar": () => undefined,
  "policy.get": () => ({ version: 1 }),
  "policy.validate": () => ({ source: "rules: []\n" }),
  "policy.preview": () => ({
    source: "rules:\n  - { tool: shell, decision: ask }\n",
    sample: { tool: "shell", args: { command: "ls" }, tier: "T1" },
  }),
  "policy.save": () => ({ source: 'rules:\n  - { tool: "*", decision: allow }\n', comment: `sample ${++seq}` }),
  "policy.suggestions": () => undefined,
  "policy.acceptSuggestion": () => ({ id: "0123456789abcdef" }),
  "policy.dismissSuggestion": () => ({ id: "0123456789abcdef", reason: "sample" }),
  "audit.list": () => ({}),
  "audit.export": () => ({ filter: {}, format: "csv" }),
  "humanRequests.list": () => ({}),
  "humanRequests.get": () => ({ id: "no-such-request" }),
  "humanRequests.openCount": () => undefined,
  "humanRequests.decide": () => ({ id: "no-such-request", decision: "approve" }),
  "humanRequests.createLink": () => ({ id: "no-such-request" }),
  "humanRequests.openLink": () => ({ token: "not-a-token" }),
  "humanRequests.decideWithLink": () => ({ token: "not-a-token", decision: "approve" }),
  "traces.spans": (fx) => ({ runId: fx.finishedRunId }),
  "traces.page": (fx) => ({ runId: fx.finishedRunId, limit: 5 }),
  "traces.changes": (fx) => ({ runId: fx.finishedRunId, since: 0 }),
  "traces.span": (fx) => ({ runId: fx.finishedRunId, spanId: "no-such-span" }),
  "traces.list": () => ({ sort: "cost", limit: 10 }),
  "traces.search": () => ({ tool: "shell", limit: 10 }),
  "traces.facets": () => ({}),
  "telemetrySettings.get": () => undefined,
  "data.status": () => undefined,
  "data.save": () => ({ audit: 730 }),
  "data.pruneNow": () => undefined,
  "data.measure": () => undefined,
  "telemetrySettings.setOtlp": () => ({ otlp: null }),
  "telemetrySettings.testOtlp": () => ({ url: "http://127.0.0.1:9/v1/traces", headers: {} }),
  "prices.list": () => undefined,
  "prices.set": () => ({ model: "sample/model", inputPerMTok: 1, outputPerMTok: 2 }),
  "prices.delete": () => ({ model: "sample/no-such-model" }),
  "costs.summary": () => ({ groupBy: "team" }),
  "costs.health": () => ({}),
  "budgets.get": () => undefined,
  "budgets.setRun": () => ({ budgetUsd: null }),
  "budgets.setTeam": () => ({ teamId: "no-such-team", budgetUsd: 10 }),
  "models.options": () => undefined,
  "models.providers": () => undefined,
  "models.createProvider": () => ({ name: `sample-${++seq}`, kind: "openai-compatible", baseUrl: "http://127.0.0.1:9/v1" }),
  "models.updateProvider": () => ({ name: "no-such-provider", enabled: false }),
  "models.deleteProvider": () => ({ name: "no-such-provider" }),
  "models.testProvider": () => ({ kind: "openai-compatible", baseUrl: "http://127.0.0.1:9/v1" }),
  "models.health": () => undefined,
  "models.list": () => undefined,
  "models.save": () => ({ provider: "no-such-provider", modelId: "m", family: "f" }),
  "models.delete": () => ({ ref: "no-such-provider/m" }),
  "models.routing": () => undefined,
  "models.setRouting": () => ({ rules: {} }),
  "tiers.get": () => undefined,
  "tiers.save": () => defaultTierSettings(),
  // A team nobody has: NOT_FOUND once the role passes (the service checks the role in the team), and nothing changes.
  "gatewayKeys.list": () => ({ teamId: "no-such-team" }),
  "gatewayKeys.create": () => ({ teamId: "no-such-team", name: `sample key ${++seq}`, budgetUsd: 5 }),
  "gatewayKeys.revoke": () => ({ id: "no-such-key" }),
  // A team the caller is not in, a device nobody has: NOT_FOUND once the role passes, and nothing changes.
  "devices.list": () => ({}),
  "devices.createPairing": () => ({ teamId: "no-such-team" }),
  "devices.revoke": () => ({ id: "no-such-device" }),
  "devices.setAutoConsent": () => ({ id: "no-such-device", teamIds: [] }),
  // Registering contacts nothing; the others name a machine nobody has: NOT_FOUND once the role passes.
  "machines.list": () => undefined,
  "machines.get": () => ({ id: "no-such-machine" }),
  "machines.register": () => ({ name: `sample-machine-${++seq}`, host: "192.0.2.1", user: "rein" }),
  "machines.update": () => ({ id: "no-such-machine", patch: { labels: ["gpu"] } }),
  "machines.contact": () => ({ id: "no-such-machine" }),
  "machines.confirmKey": () => ({ id: "no-such-machine", fingerprint: `SHA256:${"A".repeat(43)}` }),
  "machines.test": () => ({ id: "no-such-machine" }),
  "machines.archive": () => ({ id: "no-such-machine" }),
  "secrets.list": () => undefined,
  "secrets.names": () => undefined,
  "secrets.set": () => ({ name: `SAMPLE_SECRET_${++seq}`, value: "sample-value" }),
  "secrets.delete": () => ({ name: "NO_SUCH_SECRET" }),
  "secrets.setScope": () => ({ name: "NO_SUCH_SECRET", scope: { agents: ["*"], teams: ["*"] } }),
  "evals.datasets.list": () => ({}),
  "evals.datasets.get": (fx) => ({ id: fx.datasetId }),
  "evals.createDataset": (fx) => ({ name: `sample-set-${++seq}`, teamId: fx.defaultTeamId, scoring: { scorers: [{ kind: "outcome" }] } }),
  "evals.updateDataset": (fx) => ({ id: fx.datasetId, description: `sample ${++seq}` }),
  "evals.archiveDataset": () => ({ id: "no-such-dataset" }),
  "evals.unarchiveDataset": () => ({ id: "no-such-dataset" }),
  "evals.items": (fx) => ({ datasetId: fx.datasetId }),
  "evals.itemHistory": (fx) => ({ datasetId: fx.datasetId, key: "item-1" }),
  "evals.addItem": (fx) => ({ datasetId: fx.datasetId, goal: `Sample goal ${++seq}` }),
  "evals.editItem": (fx) => ({ datasetId: fx.datasetId, key: "item-1", goal: `Edited ${++seq}` }),
  "evals.removeItem": (fx) => ({ datasetId: fx.datasetId, key: "no-such-item" }),
  "evals.addFromRun": (fx) => ({ datasetId: fx.datasetId, runId: fx.finishedRunId }),
  "evals.importJsonl": (fx) => ({ datasetId: fx.datasetId, jsonl: `{"goal":"Imported ${++seq}"}\n` }),
  "evals.exportJsonl": (fx) => ({ datasetId: fx.datasetId }),
  "evals.experiments.list": () => ({}),
  "evals.experiments.get": () => ({ id: "no-such-experiment" }),
  "evals.experiments.results": () => ({ id: "no-such-experiment" }),
  "evals.experiments.compare": () => ({ ids: ["no-such-a", "no-such-b"], baselineId: "no-such-a" }),
  "evals.experiments.gate": () => ({ candidateId: "no-such-a", baselineId: "no-such-b" }),
  "evals.startExperiment": (fx) => ({ datasetId: fx.datasetId, agent: "demo-coder", name: `sample ${++seq}` }),
  "evals.cancelExperiment": () => ({ id: "no-such-experiment" }),
  "evals.deleteExperiment": () => ({ id: "no-such-experiment" }),
  "evals.scorerKinds": () => undefined,
  "evals.previewFromRun": (fx) => ({ runId: fx.finishedRunId }),
  "skills.list": () => undefined,
  "skills.get": () => ({ name: "sample-skill" }),
  "skills.validate": (fx) => ({ text: sampleSkill(fx) }),
  "skills.save": (fx) => ({ text: sampleSkill(fx) }),
  "skills.disable": () => ({ name: "sample-skill", reason: "sample" }),
  "skills.enable": () => ({ name: "sample-skill" }),
  "improvements.list": () => ({ state: "active" }),
  "improvements.get": () => ({ id: "no-such-improvement" }),
  "improvements.friction": () => ({ limit: 10 }),
  "improvements.decideFriction": () => ({ id: "no-such-friction", action: "dismiss", reason: "known" }),
  "improvements.dashboard": () => ({ days: 7 }),
  "improvements.disable": () => ({ id: "no-such-improvement" }),
  "improvements.enable": () => ({ id: "no-such-improvement" }),
  "improvements.promote": () => ({ id: "no-such-improvement" }),
  "improvements.delete": () => ({ id: "no-such-improvement" }),
  "improvements.settings": () => undefined,
  "improvements.saveSettings": () => ({}),
  "repositories.list": () => undefined,
  "repositories.get": () => ({ id: "no-such-repository" }),
  "repositories.create": () => ({ name: "sample-repo", source: "/no/such/folder", testCommand: "true" }),
  "repositories.update": () => ({ id: "no-such-repository", patch: { testCommand: "true" } }),
  "repositories.archive": () => ({ id: "no-such-repository", archived: true }),
  "changes.list": () => ({ state: ["awaiting_review"] }),
  "changes.get": () => ({ id: "no-such-change" }),
  "changes.checkLog": () => ({ id: "no-such-change", checkId: "no-such-check" }),
  "changes.start": () => ({ repositoryId: "no-such-repository", goal: "Fix the failing test" }),
  "changes.rerunChecks": () => ({ id: "no-such-change" }),
  "changes.approve": () => ({ id: "no-such-change" }),
  "changes.reject": () => ({ id: "no-such-change", comment: "no" }),
  "changes.revert": () => ({ id: "no-such-change", reason: "it broke the build" }),
  "changes.comment": () => ({ id: "no-such-change", comment: "a question" }),
  "extensions.list": () => ({ state: "installed" }),
  "extensions.get": () => ({ id: "no-such-extension" }),
  "extensions.demo": () => undefined,
  "extensions.propose": () => ({ manifest: { name: "sample" }, files: {} }),
  "extensions.approve": () => ({ id: "no-such-extension" }),
  "extensions.reject": () => ({ id: "no-such-extension", reason: "sample" }),
  "extensions.disable": () => ({ id: "no-such-extension", reason: "sample" }),
  "extensions.enable": () => ({ id: "no-such-extension" }),
  "extensions.remove": () => ({ id: "no-such-extension" }),
  "mcp.list": () => undefined,
  "mcp.get": () => ({ name: "no-such-server" }),
  "mcp.pendingReviews": () => undefined,
  "mcp.add": () => ({ name: "sample", transport: "http", http: { url: "http://127.0.0.1:9/mcp" } }),
  "mcp.addDemo": () => undefined,
  "mcp.update": () => ({ name: "no-such-server", patch: { enabled: false } }),
  "mcp.remove": () => ({ name: "no-such-server" }),
  "mcp.test": () => ({ name: "no-such-server" }),
  "mcp.authorize": () => ({ name: "no-such-server" }),
  "mcp.forgetAuthorization": () => ({ name: "no-such-server" }),
  "mcp.setTool": () => ({ server: "no-such-server", tool: "echo", patch: { enabled: true } }),
  "mcp.review": () => ({ server: "no-such-server", tool: "echo", accept: false }),
  "mcp.setTokenBudget": () => ({ tokens: 9000 }),
  // A program Rein does not have (NOT_FOUND once the role passes): nothing is installed or started.
  "hosted.list": () => undefined,
  "hosted.install": () => ({ id: "no-such-program" }),
  "hosted.test": () => ({ id: "no-such-program" }),
  "webhooks.list": () => undefined,
  "webhooks.get": () => ({ id: "no-such-webhook" }),
  "webhooks.eventTypes": () => undefined,
  "webhooks.create": () => ({ url: "https://example.com/hook", eventTypes: ["*"] }),
  "webhooks.update": () => ({ id: "no-such-webhook", patch: { enabled: false } }),
  "webhooks.remove": () => ({ id: "no-such-webhook" }),
  "webhooks.rotate": () => ({ id: "no-such-webhook" }),
  "webhooks.test": () => ({ id: "no-such-webhook" }),
  "webhooks.deliveries": () => ({ id: "no-such-webhook" }),
  "webhooks.delivery": () => ({ id: "no-such-delivery" }),
  "webhooks.resend": () => ({ id: "no-such-delivery" }),
  "webhooks.recover": () => ({ id: "no-such-webhook", since: new Date().toISOString() }),
  "webhooks.allowHosts": () => undefined,
  "webhooks.setAllowHosts": () => ({ hosts: [] }),
  "channels.routing": () => undefined,
  "channels.setRouting": () => ({ level2: {}, onCall: [] }),
  "channels.notices": () => undefined,
  "email.get": () => undefined,
  "email.save": () => ({ enabled: false, host: "127.0.0.1", port: 9, security: "none", from: "Rein <rein@test.local>" }),
  "email.sendTest": () => undefined,
  "slack.settings": () => undefined,
  "slack.saveSettings": () => ({ enabled: false, defaultChannels: { "*": "C0SAMPLE1" } }),
  "slack.testConnection": () => undefined,
  "slack.users": () => undefined,
  "slack.setMapping": (fx) => ({ slackUserId: "U0SAMPLE1", userId: fx.spareUserId }),
  "slack.sync": () => undefined,
  "memories.list": () => ({ q: "deploy" }),
  // A memory nobody has: NOT_FOUND once the role passes, and nothing changes.
  "memories.get": () => ({ id: "no-such-memory" }),
  "memories.update": () => ({ id: "no-such-memory", text: "Edited." }),
  "memories.pin": () => ({ id: "no-such-memory", pinned: true }),
  "memories.delete": () => ({ id: "no-such-memory" }),
  "memories.scenarioSharing": () => undefined,
  // A team nobody has: NOT_FOUND once the role passes, and nothing changes.
  "memories.setScenarioSharing": () => ({ teamId: "no-such-team", shared: true }),
};

type ProcedureDef = { _def: { type: string; meta?: Meta } };
// tRPC 11 keeps a flat record of every procedure by its dotted path.
const PROCEDURES = Object.entries(appRouter._def.procedures as unknown as Record<string, ProcedureDef>).map(([path, p]) => ({
  path,
  type: p._def.type,
  minRole: p._def.meta?.minRole,
}));

let tk: TestKernel;
let fx: Fixture;
let otherTeamOperator: Actor;

/** Every service a procedure reaches beside the kernel's own, so each call below gets its procedure's own answer. */
let services: ServiceOverrides & Required<Pick<ServiceOverrides, "keyring" | "mcp">>;
let improve: Improve;

function callerAs(actor: Actor | null) {
  return callerFor(tk, actor, services);
}

/** Calls a procedure by its dotted path. */
function invoke(actor: Actor | null, path: string, input: unknown): Promise<unknown> {
  const fn = path.split(".").reduce<any>((node, part) => node[part], callerAs(actor));
  return fn(input);
}

/** The tRPC error code a call ends with, or "OK". */
async function outcome(actor: Actor | null, path: string, input: unknown): Promise<string> {
  try {
    await invoke(actor, path, input);
    return "OK";
  } catch (err) {
    if (err instanceof TRPCError) return err.code;
    throw err;
  }
}

/** What the database holds, once runs launched by earlier calls have finished. */
async function counts() {
  await tk.kernel.pool.whenIdle();
  const db = tk.t.db;
  return {
    runs: await db.run.count(),
    events: await db.runEvent.count(),
    users: await db.user.count(),
    tokens: await db.apiToken.count(),
    revoked: await db.apiToken.count({ where: { revokedAt: { not: null } } }),
    roles: (await db.user.findMany({ select: { id: true, role: true }, orderBy: { id: "asc" } })).map((u) => `${u.id}:${u.role}`).join(","),
  };
}

beforeAll(async () => {
  tk = await createTestKernel({ hitl: true });
  const db = tk.t.db;
  const keyring = memoryKeyring();
  const sandbox = probeSandbox();
  improve = Improve.withChanges({ db, kernel: tk.kernel, log: SILENT_LOG, changes: { broker: tk.hitl!.broker, dataDir: tk.t.dir } });
  services = {
    keyring,
    models: new ModelAdmin({ db, keyring, catalog: new ModelCatalog({ db, keyring }), setPrice: async () => {}, testTimeoutMs: 2000 }),
    compute: { terminals: new PodPool({ dataDir: tk.t.dir, size: 0, limits: DEFAULT_LIMITS, sandbox, allowUnsandboxed: false }), sandbox },
    telemetry: { loadPrices: async () => {}, applyOtlp: async () => {} },
    tiers: {
      defaults: defaultTierSettings(),
      availability: () => ({ T0: null, T1: null, T2: null, T3: "not built", T4: "not built" }),
      applyPoolSizes() {},
    },
    experiments: { wake() {} },
    improve,
    mcp: new McpServers({ db, registry: tk.kernel.deps.registry, dataDir: tk.t.dir, keyring, log: SILENT_LOG }),
    webhooks: new Webhooks({ db, keyring, lookup: async () => [{ address: "93.184.215.14", family: 4 }] }),
    system: { cluster: null, version: "0.0.0-test" },
    retention: new Retention({ db, dataDir: tk.t.dir, databaseUrl: tk.t.url, log: SILENT_LOG }),
  };
  await services.mcp.start();
  const otherId = await createUser(db, { email: "other-team@test.local", password: "test-password-1", role: "operator", teams: ["other"] });
  otherTeamOperator = (await loadActor(db, otherId))!;
  const spareUserId = await createUser(db, { email: "spare@test.local", password: "test-password-1", role: "viewer" });
  const finished = await createRun(tk.kernel, { goal: "Write fizzbuzz", agent: "demo-coder" }, tk.actors.operator);
  const other = await createRun(tk.kernel, { goal: "Secret plans", agent: "demo-coder", scenario: [{ text: "hi" }] }, otherTeamOperator);
  expect(await tk.settle(finished.id)).toBe("succeeded");
  expect(await tk.settle(other.id)).toBe("succeeded");
  const defaultTeamId = tk.actors.operator.teamIds[0];
  const dataset = await createDataset(
    db,
    { actor: tk.actors.admin, channel: "admin" },
    { name: "sample-dataset", teamId: defaultTeamId, scoring: { scorers: [{ kind: "outcome" }] } },
  );
  await addItem(db, { actor: tk.actors.admin, channel: "admin" }, dataset.id, { goal: "Sample goal" });
  fx = { finishedRunId: finished.id, otherTeamRunId: other.id, spareUserId, defaultTeamId, datasetId: dataset.id };
  for (const name of ["sample-agent", "sample-archived"]) {
    await createAgent(agentDepsOf(tk.kernel), { actor: tk.actors.admin, channel: "admin" }, sampleSpec(fx, name));
  }
});

afterAll(async () => {
  await services?.mcp.stop();
  await improve?.stop();
  await tk?.cleanup();
});

describe("access to every procedure", () => {
  it("every procedure has a sample input here and declares its minRole", () => {
    const paths = PROCEDURES.map((p) => p.path);
    expect(paths.length).toBeGreaterThan(0);
    const missing = paths.filter((p) => !(p in SAMPLES));
    expect(missing, `procedures without a sample input in api.test.ts: ${missing.join(", ")}`).toEqual([]);
    const stale = Object.keys(SAMPLES).filter((p) => !paths.includes(p));
    expect(stale, `samples for procedures that no longer exist: ${stale.join(", ")}`).toEqual([]);
    const undeclared = PROCEDURES.filter((p) => !p.minRole || !([...ROLES, "none"] as readonly string[]).includes(p.minRole)).map(
      (p) => p.path,
    );
    expect(undeclared, `procedures without meta.minRole: ${undeclared.join(", ")}`).toEqual([]);
  });

  it("users.* and invitations.* need admin and runs.create needs operator", () => {
    const min = Object.fromEntries(PROCEDURES.map((p) => [p.path, p.minRole]));
    for (const p of [
      "users.list",
      "users.create",
      "users.setRole",
      "users.disable",
      "users.enable",
      "users.resetLink",
      "invitations.list",
      "invitations.create",
      "invitations.revoke",
      "teams.create",
      "teams.archive",
      "teams.unarchive",
    ]) {
      expect(min[p], p).toBe("admin");
    }
    for (const p of [
      "runs.create",
      "runs.pause",
      "runs.resume",
      "runs.cancel",
      "runs.say",
      "runs.retry",
      "runs.rerun",
      "runs.fork",
      "runs.cancelMany",
      "runs.setTags",
    ])
      expect(min[p]).toBe("operator");
  });

  it("only the invitation links' own procedures need no login", () => {
    expect(
      PROCEDURES.filter((p) => p.minRole === "none")
        .map((p) => p.path)
        .sort(),
    ).toEqual(["invitations.accept", "invitations.inspect"]);
  });

  it.each(PROCEDURES.filter((p) => p.minRole === "none"))(
    "$path (no login): every caller reaches it, anonymous included",
    async ({ path }) => {
      for (const actor of [null, ...ROLES.map((r) => tk.actors[r])]) {
        const code = await outcome(actor, path, SAMPLES[path](fx));
        expect(
          ["UNAUTHORIZED", "FORBIDDEN", "INTERNAL_SERVER_ERROR"],
          `${actor?.role ?? "anonymous"} calling ${path} got ${code}`,
        ).not.toContain(code);
      }
    },
  );

  it.each(PROCEDURES.filter((p) => p.minRole !== "none"))(
    "$path ($minRole): anonymous is UNAUTHORIZED, lower roles FORBIDDEN, the rest allowed",
    async ({ path, minRole }) => {
      const sample = SAMPLES[path];
      expect(sample, `no sample input for ${path}`).toBeDefined();
      const before = await counts();
      expect(await outcome(null, path, sample(fx))).toBe("UNAUTHORIZED");
      for (const role of ROLES.filter((r) => !roleAtLeast(r, minRole as Role))) {
        expect(await outcome(tk.actors[role], path, sample(fx)), `${role} calling ${path}`).toBe("FORBIDDEN");
      }
      expect(await counts()).toEqual(before); // refused calls changed nothing
      for (const role of ROLES.filter((r) => roleAtLeast(r, minRole as Role))) {
        const code = await outcome(tk.actors[role], path, sample(fx));
        expect(["UNAUTHORIZED", "FORBIDDEN", "INTERNAL_SERVER_ERROR"], `${role} calling ${path} got ${code}`).not.toContain(code);
      }
    },
  );

  it("refuses anonymous callers even with invalid input (authentication comes first)", async () => {
    expect(await outcome(null, "runs.create", { goal: "" })).toBe("UNAUTHORIZED");
    expect(await outcome(tk.actors.viewer, "runs.create", { goal: "" })).toBe("FORBIDDEN");
  });
});

describe("runs", () => {
  it("create refuses an unknown agent with BAD_REQUEST listing the available agents, creating nothing", async () => {
    const before = await counts();
    const err = await trpcError(invoke(tk.actors.operator, "runs.create", { goal: "Do it", agent: "no-such-agent" }));
    expect(err.code).toBe("BAD_REQUEST");
    expect(err.message).toContain('"no-such-agent"');
    for (const name of ["demo-coder", "demo-team", "demo-specialist"]) expect(err.message).toContain(name);
    expect(await counts()).toEqual(before);
  });

  it.each([
    ["an empty goal", { goal: "", agent: "demo-coder" }, "goal"],
    ["a blank goal", { goal: "   ", agent: "demo-coder" }, "goal"],
    ["no goal", { agent: "demo-coder" }, "goal"],
    ["a scenario with an empty turn", { goal: "g", agent: "demo-coder", scenario: [{}] }, "scenario"],
    ["a scenario that is a string", { goal: "g", agent: "demo-coder", scenario: "play something" }, "scenario"],
    ["an empty scenario", { goal: "g", agent: "demo-coder", scenario: [] }, "scenario"],
    ["maxSteps 0", { goal: "g", agent: "demo-coder", maxSteps: 0 }, "maxSteps"],
  ])("create refuses %s with BAD_REQUEST naming %s, creating nothing", async (_what, input, field) => {
    const before = await counts();
    const err = await trpcError(invoke(tk.actors.operator, "runs.create", input));
    expect(err.code).toBe("BAD_REQUEST");
    expect(err.message).toContain(field);
    expect(await counts()).toEqual(before);
  });

  it("create queues a run and returns it; the run records who launched it", async () => {
    const run = (await invoke(tk.actors.operator, "runs.create", {
      goal: "Say hi",
      agent: "demo-coder",
      scenario: [{ text: "hi" }],
    })) as Record<string, any>;
    expect(run).toMatchObject({ goal: "Say hi", agentName: "demo-coder", scripted: true, scenarioGiven: true });
    expect(run.createdBy.id).toBe(tk.users.operator);
    expect(await tk.settle(run.id)).toBe("succeeded");
  });

  it("a non-admin cannot see another team's run: NOT_FOUND, and it is left alone", async () => {
    for (const role of ["viewer", "operator", "approver"] as const) {
      for (const path of ["runs.get", "runs.events", "runs.exportScenario"]) {
        const err = await trpcError(invoke(tk.actors[role], path, { id: fx.otherTeamRunId }));
        expect(err.code, `${role} ${path}`).toBe("NOT_FOUND");
        expect(err.message).toBe(`Run ${fx.otherTeamRunId} was not found`);
      }
      const list = (await invoke(tk.actors[role], "runs.list", {})) as { runs: Array<{ id: string }> };
      expect(list.runs.map((r) => r.id)).not.toContain(fx.otherTeamRunId);
    }
    const before = await counts();
    for (const path of ["runs.pause", "runs.resume", "runs.cancel", "runs.retry", "runs.rerun", "runs.lineage"]) {
      expect((await trpcError(invoke(tk.actors.operator, path, { id: fx.otherTeamRunId }))).code, path).toBe("NOT_FOUND");
    }
    expect((await trpcError(invoke(tk.actors.operator, "runs.say", { id: fx.otherTeamRunId, text: "let me in" }))).code).toBe("NOT_FOUND");
    expect((await trpcError(invoke(tk.actors.operator, "runs.fork", { id: fx.otherTeamRunId, step: 1 }))).code).toBe("NOT_FOUND");
    expect((await trpcError(invoke(tk.actors.operator, "runs.compare", { a: fx.finishedRunId, b: fx.otherTeamRunId }))).code).toBe(
      "NOT_FOUND",
    );
    expect(await counts()).toEqual(before);
    // Its own team and admins see it.
    expect(await outcome(otherTeamOperator, "runs.get", { id: fx.otherTeamRunId })).toBe("OK");
    expect(await outcome(tk.actors.admin, "runs.get", { id: fx.otherTeamRunId })).toBe("OK");
    expect((await trpcError(invoke(otherTeamOperator, "runs.get", { id: fx.finishedRunId }))).code).toBe("NOT_FOUND");
  });

  it("an unknown run is NOT_FOUND", async () => {
    expect((await trpcError(invoke(tk.actors.admin, "runs.get", { id: "no-such-run" }))).code).toBe("NOT_FOUND");
  });

  it("pause, resume and cancel of a finished run are CONFLICT with a clear message, and log nothing", async () => {
    const before = await counts();
    const pause = await trpcError(invoke(tk.actors.operator, "runs.pause", { id: fx.finishedRunId }));
    expect(pause.code).toBe("CONFLICT");
    expect(pause.message).toBe("A succeeded run cannot be paused");
    const resume = await trpcError(invoke(tk.actors.operator, "runs.resume", { id: fx.finishedRunId }));
    expect(resume.code).toBe("CONFLICT");
    expect(resume.message).toBe("Only a paused run can be resumed (this one is succeeded)");
    const cancel = await trpcError(invoke(tk.actors.operator, "runs.cancel", { id: fx.finishedRunId }));
    expect(cancel.code).toBe("CONFLICT");
    expect(cancel.message).toBe("A succeeded run cannot be canceled");
    expect(await counts()).toEqual(before);
  });

  it("events pages after a cursor", async () => {
    const all = (await invoke(tk.actors.viewer, "runs.events", { id: fx.finishedRunId })) as Array<{ seq: number }>;
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
    const page = (await invoke(tk.actors.viewer, "runs.events", { id: fx.finishedRunId, after: 3, limit: 2 })) as Array<{ seq: number }>;
    expect(page.map((e) => e.seq)).toEqual([4, 5]);
    expect((await trpcError(invoke(tk.actors.viewer, "runs.events", { id: fx.finishedRunId, after: -1 }))).code).toBe("BAD_REQUEST");
  });
});

describe("identity", () => {
  it("createToken returns a token that authenticates; revokeToken makes it rejected", async () => {
    const db = tk.t.db;
    const created = (await invoke(tk.actors.viewer, "identity.createToken", { name: "ci" })) as {
      id: string;
      token: string;
      prefix: string;
    };
    expect(created.token).toMatch(/^rein_/);
    expect(created.token.startsWith(created.prefix)).toBe(true);
    const actor = await authenticateToken(db, created.token);
    expect(actor).toMatchObject({ userId: tk.users.viewer, role: "viewer", via: "token" });

    const listed = (await invoke(tk.actors.viewer, "identity.tokens", undefined)) as Array<Record<string, unknown>>;
    const mine = listed.find((t) => t.id === created.id)!;
    expect(mine).toMatchObject({ name: "ci", prefix: created.prefix, revokedAt: null });
    expect(Object.keys(mine)).not.toContain("tokenHash");
    expect(JSON.stringify(listed)).not.toContain(created.token);

    // Somebody else cannot revoke it.
    expect((await trpcError(invoke(tk.actors.admin, "identity.revokeToken", { id: created.id }))).code).toBe("NOT_FOUND");
    expect(await authenticateToken(db, created.token)).not.toBeNull();

    expect(await invoke(tk.actors.viewer, "identity.revokeToken", { id: created.id })).toEqual({ ok: true });
    expect(await authenticateToken(db, created.token)).toBeNull();
    expect((await trpcError(invoke(tk.actors.viewer, "identity.revokeToken", { id: created.id }))).code).toBe("NOT_FOUND");
  });

  it("rejects an expired token, a forged one and one that is not a Rein token", async () => {
    const db = tk.t.db;
    const created = await createApiToken(db, { userId: tk.users.operator, name: "short-lived", expiresInDays: 1 });
    expect(await authenticateToken(db, created.token)).not.toBeNull();
    await db.apiToken.update({ where: { id: created.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(await authenticateToken(db, created.token)).toBeNull();
    expect(await authenticateToken(db, "rein_xxx")).toBeNull();
    expect(await authenticateToken(db, created.token.slice(0, -1) + (created.token.endsWith("A") ? "B" : "A"))).toBeNull();
    expect(await authenticateToken(db, "Bearer something")).toBeNull();
  });

  it("createToken refuses an empty name", async () => {
    const err = await trpcError(invoke(tk.actors.viewer, "identity.createToken", { name: " " }));
    expect(err.code).toBe("BAD_REQUEST");
    expect(err.message).toContain("name");
  });

  it("me says who is calling, without secrets", async () => {
    const me = (await invoke(tk.actors.approver, "identity.me", undefined)) as Record<string, unknown>;
    expect(me).toMatchObject({ userId: tk.users.approver, email: "approver@test.local", role: "approver" });
    expect(Object.keys(me)).not.toContain("passwordHash");
  });
});

describe("users", () => {
  it("setRole refuses removing your own admin role, and changes nothing", async () => {
    for (const role of ["viewer", "operator", "approver"] as const) {
      const err = await trpcError(invoke(tk.actors.admin, "users.setRole", { id: tk.users.admin, role }));
      expect(err.code).toBe("BAD_REQUEST");
      expect(err.message).toBe("You cannot remove your own admin role");
    }
    expect((await tk.t.db.user.findUniqueOrThrow({ where: { id: tk.users.admin } })).role).toBe("admin");
  });

  it("setRole changes another user's role, and an unknown user is NOT_FOUND", async () => {
    const id = await createUser(tk.t.db, { email: "promote-me@test.local", password: "test-password-1", role: "viewer" });
    expect(await invoke(tk.actors.admin, "users.setRole", { id, role: "approver" })).toEqual({ ok: true });
    expect((await loadActor(tk.t.db, id))?.role).toBe("approver");
    expect((await trpcError(invoke(tk.actors.admin, "users.setRole", { id: "no-such-user", role: "viewer" }))).code).toBe("NOT_FOUND");
    expect((await trpcError(invoke(tk.actors.admin, "users.setRole", { id, role: "superuser" }))).code).toBe("BAD_REQUEST");
  });

  it("create refuses a taken email, a bad email and a short password, creating nothing", async () => {
    const before = await counts();
    const taken = await trpcError(
      invoke(tk.actors.admin, "users.create", { email: "viewer@test.local", password: "long-enough", role: "viewer" }),
    );
    expect(taken.code).toBe("CONFLICT");
    expect(taken.message).toContain("viewer@test.local");
    const bad = await trpcError(
      invoke(tk.actors.admin, "users.create", { email: "not-an-email", password: "long-enough", role: "viewer" }),
    );
    expect(bad.code).toBe("BAD_REQUEST");
    expect(bad.message).toContain("email");
    const short = await trpcError(invoke(tk.actors.admin, "users.create", { email: "new@test.local", password: "short", role: "viewer" }));
    expect(short.code).toBe("BAD_REQUEST");
    expect(short.message).toContain("password");
    expect(await counts()).toEqual(before);
  });

  it("list shows users without their password hashes", async () => {
    const users = (await invoke(tk.actors.admin, "users.list", undefined)) as Array<Record<string, unknown>>;
    expect(users.map((u) => u.email)).toEqual(expect.arrayContaining(["viewer@test.local", "admin@test.local"]));
    for (const u of users) expect(Object.keys(u)).not.toContain("passwordHash");
  });
});

describe("prices and costs", () => {
  it("prices.set and prices.delete need admin; list and costs.summary any role", () => {
    const min = Object.fromEntries(PROCEDURES.map((p) => [p.path, p.minRole]));
    expect(min["prices.set"]).toBe("admin");
    expect(min["prices.delete"]).toBe("admin");
    expect(min["prices.list"]).toBe("viewer");
    expect(min["costs.summary"]).toBe("viewer");
  });

  it("prices.set refuses a bad price with BAD_REQUEST naming the field, saving nothing", async () => {
    const before = await tk.t.db.modelPrice.count();
    const negative = await trpcError(
      invoke(tk.actors.admin, "prices.set", { model: "openai/gpt-4.1", inputPerMTok: -1, outputPerMTok: 2 }),
    );
    expect(negative.code).toBe("BAD_REQUEST");
    expect(negative.message).toContain("inputPerMTok");
    expect(negative.message).toContain("must be 0 or more");
    const model = await trpcError(invoke(tk.actors.admin, "prices.set", { model: "gpt-4.1", inputPerMTok: 1, outputPerMTok: 2 }));
    expect(model.code).toBe("BAD_REQUEST");
    expect(model.message).toContain("<provider>/<model id>");
    expect(await tk.t.db.modelPrice.count()).toBe(before);
  });

  it("prices.delete of a model without a price is NOT_FOUND", async () => {
    const err = await trpcError(invoke(tk.actors.admin, "prices.delete", { model: "openai/never-priced" }));
    expect(err.code).toBe("NOT_FOUND");
    expect(err.message).toBe("There is no price for openai/never-priced");
  });

  it("costs.summary refuses a range that ends before it starts with BAD_REQUEST", async () => {
    const err = await trpcError(invoke(tk.actors.viewer, "costs.summary", { from: "2026-03-10", to: "2026-03-01" }));
    expect(err.code).toBe("BAD_REQUEST");
    expect(err.message).toContain("must not be after to");
  });
});

describe("skills", () => {
  it("validate returns every problem of a SKILL.md with its line, saving nothing", async () => {
    const before = await tk.t.db.improvement.count();
    const res = (await invoke(tk.actors.viewer, "skills.validate", { text: "---\nname: Bad\nextra: 1\n---\n" })) as {
      ok: boolean;
      problems: Array<{ text: string }>;
    };
    expect(res.ok).toBe(false);
    expect(res.problems.map((p) => p.text)).toEqual([
      expect.stringContaining("description is required"),
      expect.stringMatching(/^line 2: name "Bad" is not valid/),
      expect.stringMatching(/^line 3: unknown front-matter key "extra"/),
      expect.stringMatching(/^line 5: the body is empty/),
    ]);
    expect(await tk.t.db.improvement.count()).toBe(before);
  });

  it("save refuses a bad SKILL.md with BAD_REQUEST and its problems, and a skill for everyone from an operator with FORBIDDEN", async () => {
    const bad = await trpcError(invoke(tk.actors.operator, "skills.save", { text: "---\nname: Bad\n---\n" }));
    expect(bad.code).toBe("BAD_REQUEST");
    expect(bad.message).toContain('name "Bad" is not valid');
    const everyone = await trpcError(
      invoke(tk.actors.operator, "skills.save", {
        text: "---\nname: for-everyone\ndescription: A skill for every team; use it when a test says so.\n---\nHello.\n",
      }),
    );
    expect(everyone.code).toBe("FORBIDDEN");
    expect(everyone.message).toContain("for everyone you need the admin role");
  });

  it("save stores a version another team cannot see", async () => {
    const view = (await invoke(tk.actors.operator, "skills.save", {
      text: sampleSkill(fx).replace("sample-skill", "team-only-skill"),
    })) as { name: string; current: { state: string } };
    expect(view).toMatchObject({ name: "team-only-skill", current: { state: "active" } });
    expect((await trpcError(invoke(otherTeamOperator, "skills.get", { name: "team-only-skill" }))).code).toBe("NOT_FOUND");
    expect(((await invoke(otherTeamOperator, "skills.list", undefined)) as Array<{ name: string }>).map((s) => s.name)).not.toContain(
      "team-only-skill",
    );
  });
});

describe("webhooks", () => {
  it("maps the service's refusals to tRPC codes: a bad URL by field, a private address, an unknown endpoint", async () => {
    const caller = callerAs(tk.actors.admin);
    const bad = await trpcError(caller.webhooks.create({ url: "not a url", eventTypes: [] }));
    expect(bad.code).toBe("BAD_REQUEST");
    expect(bad.message).toMatch(/^url: .*; eventTypes: choose at least one/);
    const local = await trpcError(caller.webhooks.create({ url: "http://127.0.0.1:9/hook", eventTypes: ["*"] }));
    expect(local.code).toBe("BAD_REQUEST");
    expect(local.message).toMatch(/^url: 127.0.0.1 is an address of this/);
    expect((await trpcError(caller.webhooks.get({ id: "nobody" }))).code).toBe("NOT_FOUND");
    const { endpoint, secret } = await caller.webhooks.create({ url: "https://example.com/hook", eventTypes: ["run.state_changed"] });
    expect(secret).toMatch(/^whsec_/);
    expect(JSON.stringify(await caller.webhooks.list())).not.toContain(secret);
    expect((await caller.webhooks.update({ id: endpoint.id, patch: { enabled: false } })).enabled).toBe(false);
    expect((await trpcError(caller.webhooks.recover({ id: endpoint.id, since: new Date() }))).code).toBe("CONFLICT");
    await caller.webhooks.remove({ id: endpoint.id });
  });
});

describe("mcp", () => {
  it("maps the service's refusals to tRPC codes: a bad config, an unknown server, a taken name", async () => {
    const caller = callerAs(tk.actors.admin);
    const bad = await trpcError(caller.mcp.add({ name: "Bad Name", transport: "http", http: { url: "ftp://example.com" } }));
    expect(bad.code).toBe("BAD_REQUEST");
    expect(bad.message).toMatch(/^name: .*; http\.url: /);
    expect((await trpcError(caller.mcp.get({ name: "nobody" }))).code).toBe("NOT_FOUND");
    const added = await caller.mcp.add({ name: "unreachable", transport: "http", http: { url: "http://127.0.0.1:9/mcp" } });
    expect(added).toMatchObject({ name: "unreachable", health: "failed" });
    expect(
      (await trpcError(caller.mcp.add({ name: "unreachable", transport: "http", http: { url: "http://127.0.0.1:9/mcp" } }))).code,
    ).toBe("CONFLICT");
    expect((await trpcError(caller.mcp.setTokenBudget({ tokens: 1 }))).code).toBe("BAD_REQUEST");
    expect(await caller.mcp.pendingReviews()).toBe(0);
    await caller.mcp.remove({ name: "unreachable" });
    // The servers the access checks above added stay; the one removed is gone.
    expect((await caller.mcp.list()).servers.map((s) => s.name)).not.toContain("unreachable");
  });
});
