// The OpenAPI description of REST v1 (served at /api/v1/openapi.json). Each
// operation says the least role it needs (x-rein-role, checked against the
// router's table by test/docs.test.ts) and has a summary; docs/api.md's route
// table is generated from it (npm run docs).
import type { Role } from "@/server/identity";
import { OUTBOX_TYPES as WEBHOOK_EVENT_TYPES } from "@/server/kernel";

/** An operation: the least role it needs, what it does in a line, and the rest of its description. */
const op = (role: Role | "none", summary: string, rest: object = {}) => ({ summary, "x-rein-role": role, ...rest });
const RunRef = { $ref: "#/components/schemas/Run" };
const Err = { description: "Error", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };
const idParam = { name: "id", in: "path", required: true, schema: { type: "string" } };
const json = (schema: object) => ({ content: { "application/json": { schema } } });
const nameParam = { name: "name", in: "path", required: true, schema: { type: "string" } };
const Provider = {
  type: "object",
  properties: {
    name: { type: "string" },
    kind: { enum: ["openai", "anthropic", "openai-compatible"] },
    baseUrl: { type: ["string", "null"] },
    apiKeyMasked: { type: ["string", "null"], description: "The key is never returned in clear" },
    selfHosted: { type: "boolean" },
    enabled: { type: "boolean" },
    modelCount: { type: "integer" },
  },
};
const AgentRef = { $ref: "#/components/schemas/Agent" };
const AgentSpecRef = { $ref: "#/components/schemas/AgentSpec" };
const versionParam = { name: "version", in: "path", required: true, schema: { type: "integer", minimum: 1 } };
const agentOut = (description: string) => ({ description, ...json(AgentRef) });
const InvalidSpec = { ...Err, description: "The spec has problems: error.issues lists each by field (path) in words" };
const InvalidInput = { ...Err, description: "The input has problems: error.issues lists each by field (path) in words" };
const keyParam = { name: "key", in: "path", required: true, schema: { type: "string" } };
const mcpNameParam = {
  name: "name",
  in: "path",
  required: true,
  description: "The server's name",
  schema: { type: "string", pattern: "^[a-z][a-z0-9-]{0,30}$" },
};
const mcpToolParam = {
  name: "tool",
  in: "path",
  required: true,
  description: "The tool's name as its server gives it",
  schema: { type: "string" },
};
/** A variable's or a header's value: a Rein secret by name (never shown), or plain text. */
const McpValue = {
  oneOf: [
    { type: "object", required: ["secret"], properties: { secret: { type: "string", pattern: "^[A-Z][A-Z0-9_]{0,63}$" } } },
    { type: "object", required: ["value"], properties: { value: { type: "string", maxLength: 4096 } } },
  ],
};
const McpStdio = {
  type: "object",
  required: ["command"],
  properties: {
    command: { type: "string", description: '"node" (the sandbox\'s Node) or an absolute path under /usr' },
    args: { type: "array", items: { type: "string" }, maxItems: 64 },
    env: { type: "object", additionalProperties: McpValue, description: "Variables by name; the sandbox starts from a clean environment" },
    network: { type: "boolean", default: false, description: "true gives the server the machine's network" },
  },
};
const McpHttp = {
  type: "object",
  required: ["url"],
  properties: { url: { type: "string", format: "uri" }, headers: { type: "object", additionalProperties: McpValue } },
};
const McpServerOut = {
  description:
    "{ name, transport, enabled, health: starting|ready|failed|stopped, reason, stderrTail, info, lastSeenAt, createdAt, config (secrets by name), toolCount, enabledCount, changedCount, enabledTokens, tools? }",
};
const McpToolOut = {
  description:
    "{ name, exposedName, policyName, state: enabled|disabled|changed|removed, live, title, description, inputSchema, annotations, replayClass, replayOverride, allowedAgents, allowedTeams (team ids), teams: [{ id, name }], tokens, pinnedHash, change: { hash, definition, pinned } | null }",
};
const DatasetBody = {
  type: "object",
  required: ["name", "scoring"],
  properties: {
    name: { type: "string", pattern: "^[a-z][a-z0-9-]{1,63}$" },
    description: { type: "string", maxLength: 500 },
    teamId: { type: ["string", "null"], description: "The team that sees it; null: everyone (admins only)" },
    scoring: {
      type: "object",
      required: ["scorers"],
      properties: {
        scorers: {
          type: "array",
          items: { type: "object", required: ["kind"] },
          description: "Scorer configs { kind, weight?, required?, ...settings }",
        },
        threshold: { type: "number", minimum: 0, maximum: 1, default: 1 },
      },
    },
  },
};
const ItemBody = {
  type: "object",
  required: ["goal"],
  properties: {
    key: { type: "string", description: "Stable across the item's versions" },
    goal: { type: "string" },
    agent: { type: ["string", "null"] },
    scenario: { type: ["object", "array", "null"], description: "A scenario for the scripted model" },
    expected: {
      type: "object",
      description: "The expected outcome: outcome, text, notes; scorers checked for this item besides the dataset's",
    },
  },
};
const datasetOut = (description: string) => ({
  description: `${description}: { id, name, description, teamId, team, scoring, builtIn, archived, itemCount, createdAt, updatedAt, createdBy }`,
});
const control = (what: string, when: string) => ({
  post: op("operator", `${what} a run`, {
    description: when,
    parameters: [idParam],
    responses: { 200: { description: "Done", ...json({ type: "object", properties: { ok: { type: "boolean" } } }) }, 409: Err, 404: Err },
  }),
});
const RoleEnum = { enum: ["viewer", "operator", "approver", "admin"] };
const Ok = { description: "{ ok }", ...json({ type: "object", properties: { ok: { type: "boolean" } } }) };
const userIdParam = { name: "userId", in: "path", required: true, schema: { type: "string" } };
const Link = json({
  type: "object",
  properties: {
    id: { type: "string" },
    url: { type: "string", description: "Shown once; only its hash is stored" },
    expiresAt: { type: "string", format: "date-time" },
  },
});
const Scope = {
  type: "object",
  required: ["agents", "teams"],
  properties: {
    agents: { type: "array", items: { type: "string" }, description: "Agent names that may be given the secret; * for any" },
    teams: {
      type: "array",
      items: { type: "string" },
      description: "Team ids whose runs may be given it, * for any; a team's name is accepted and stored as its id",
    },
    callerCommands: { type: "boolean", description: "Runs that play a scenario (commands chosen by their caller) may be given it too" },
  },
};

export const OPENAPI = {
  openapi: "3.1.0",
  info: { title: "Rein API", version: "1" },
  components: {
    securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
    schemas: {
      Error: {
        type: "object",
        properties: { error: { type: "object", properties: { code: { type: "string" }, message: { type: "string" } } } },
      },
      Run: {
        type: "object",
        properties: {
          id: { type: "string" },
          goal: { type: "string" },
          agentName: { type: "string" },
          status: { enum: ["queued", "running", "paused", "waiting_human", "succeeded", "failed", "canceled"] },
          stepCount: { type: "integer" },
          inputTokens: { type: "integer" },
          outputTokens: { type: "integer" },
          costUsd: { type: "number", description: "USD of the run's model calls, from the price table" },
          lastSeq: { type: "integer" },
          maxSteps: { type: "integer", description: "The run's step limit (model calls)" },
          budgetUsd: { type: ["number", "null"], description: "The run's cost ceiling" },
          parentRunId: { type: ["string", "null"], description: "The run this one re-runs or forks" },
          parentSeq: { type: ["integer", "null"], description: "A fork: the parent's checkpoint it starts from" },
          lineage: { enum: ["rerun", "fork", null] },
        },
      },
      CostTotals: {
        type: "object",
        properties: {
          costUsd: { type: "number" },
          calls: { type: "integer" },
          inputTokens: { type: "integer" },
          outputTokens: { type: "integer" },
          cachedInputTokens: { type: "integer" },
          runs: { type: "integer", description: "totals only: runs created in the range" },
        },
      },
      AgentSpec: {
        type: "object",
        required: ["name", "instructions", "model"],
        description: "An agent spec as people write it; the same fields in a YAML file",
        properties: {
          name: { type: "string", pattern: "^[a-z][a-z0-9-]{1,63}$" },
          description: { type: "string", maxLength: 500 },
          instructions: { type: "string", maxLength: 50000 },
          model: { type: "string", description: '"auto", "<provider>/<model id>" of a configured model, or "scripted/<scenario>"' },
          taskClass: { enum: ["plan", "code", "classify", "summarize", "judge"], default: "code" },
          complexity: { type: "number", minimum: 0, maximum: 1 },
          tools: {
            type: "array",
            items: { type: "string" },
            description: "Tool names (GET /api/v1/agents lists what agents use; the Agents page lists all)",
          },
          handoffs: {
            type: "array",
            items: { type: "string" },
            description: "Agents it may hand off to: its own team's or everyone's; needs the handoff tool",
          },
          guardrails: {
            type: "object",
            properties: {
              callCap: {
                type: "integer",
                minimum: 1,
                maximum: 500,
                description: "A run's LLM call cap unless its launcher gives one; over 50 needs costCeilingUsd",
              },
              costCeilingUsd: { type: "number", exclusiveMinimum: 0, description: "A run's cost ceiling unless its launcher gives one" },
              maxRepeats: { type: "integer", minimum: 2, maximum: 50 },
              maxFailingSteps: { type: "integer", minimum: 2, maximum: 50 },
            },
          },
          tier: { type: "string", default: "T1", description: "T0, T1 or T2" },
          secrets: { type: "array", items: { type: "string" }, description: "Secret names its tools may use" },
          teamId: { type: ["string", "null"], description: "Only this team sees and runs it; null: everyone (admins only)" },
        },
      },
      Agent: {
        allOf: [
          AgentSpecRef,
          {
            type: "object",
            properties: {
              version: { type: "integer" },
              builtIn: { type: "boolean", description: "Comes with Rein: copy it to change it" },
              archived: { type: "boolean" },
              team: { type: ["object", "null"], properties: { id: { type: "string" }, name: { type: "string" } } },
              changeNote: { type: "string" },
              createdAt: { type: "string", format: "date-time" },
              createdBy: { type: ["string", "null"] },
            },
          },
        ],
      },
      Event: {
        type: "object",
        properties: {
          seq: { type: "integer" },
          type: { type: "string" },
          actor: { type: "string" },
          payload: {},
          createdAt: { type: "string" },
        },
      },
    },
  },
  security: [{ bearer: [] }],
  paths: {
    "/api/v1/openapi.json": {
      get: op("none", "This description of the API", {
        security: [],
        description: "Needs no token.",
        responses: { 200: { description: "OpenAPI 3.1" } },
      }),
    },
    "/api/v1/runs": {
      post: op("operator", "Launch a run", {
        description: "Writes a queued run and returns at once; a worker picks it up.",
        requestBody: json({
          type: "object",
          required: ["goal", "agent"],
          properties: {
            goal: { type: "string" },
            agent: { type: "string" },
            scenario: { description: "Turns for the scripted model: [{text?, toolCalls?: [{tool, args}]}] or {turns, stopOnError}" },
            maxSteps: { type: "integer", description: "The LLM call cap (default 50); above 50 needs budgetUsd" },
            budgetUsd: { type: "number", description: "The run's cost ceiling in USD, checked before each model call" },
            model: {
              type: "string",
              description:
                '"<provider name>/<model id>" of a configured model, "auto" for the routing rules, or a scripted one; default: the agent spec\'s model',
            },
            complexity: {
              type: "number",
              minimum: 0,
              maximum: 1,
              description: "How hard the task is: routing puts models at least this strong first; tiers have thresholds",
            },
            teamId: {
              type: "string",
              description:
                "The team the run belongs to (its budget, policies, models and who sees it); you need the operator role in it. Default: the team you used last, else your first",
            },
            secrets: {
              type: "array",
              items: { type: "string" },
              maxItems: 20,
              description:
                "Names of secrets the run's tools may use besides those its agent spec lists; each reaches the shell as a variable (deploy/token → $DEPLOY_TOKEN). Each must exist; provider keys are refused",
            },
          },
        }),
        responses: { 201: { description: "Queued", ...json(RunRef) }, 400: Err, 401: Err, 403: Err },
      }),
      get: op("viewer", "List runs, newest first", {
        description: "The runs you can see: admins every run, others their teams' runs and runs they launched.",
        parameters: [
          { name: "status", in: "query", description: "Comma-separated run states, e.g. running,failed", schema: { type: "string" } },
          { name: "agent", in: "query", schema: { type: "string" } },
          { name: "q", in: "query", description: "Part of the goal", schema: { type: "string" } },
          { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 200, default: 50 } },
          { name: "cursor", in: "query", description: "nextCursor of the page before", schema: { type: "string" } },
        ],
        responses: {
          200: {
            description: "{ runs, nextCursor }",
            ...json({ type: "object", properties: { runs: { type: "array", items: RunRef }, nextCursor: { type: ["string", "null"] } } }),
          },
          400: Err,
        },
      }),
    },
    "/api/v1/runs/{id}": {
      get: op("viewer", "A run", { parameters: [idParam], responses: { 200: { description: "Run", ...json(RunRef) }, 404: Err } }),
    },
    "/api/v1/runs/{id}/events": {
      get: op("viewer", "The run's events after a sequence number", {
        description: "Pass the cursor of one answer as after of the next to follow a run.",
        parameters: [
          idParam,
          { name: "after", in: "query", schema: { type: "integer", minimum: 0, default: 0 } },
          { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 1000, default: 500 } },
        ],
        responses: {
          200: {
            description: "Events",
            ...json({
              type: "object",
              properties: { events: { type: "array", items: { $ref: "#/components/schemas/Event" } }, cursor: { type: "integer" } },
            }),
          },
          404: Err,
        },
      }),
    },
    "/api/v1/runs/{id}/scenario": {
      get: op("viewer", "The run's model turns as a scenario, to replay", {
        parameters: [idParam],
        responses: { 200: { description: "Scenario" }, 404: Err },
      }),
    },
    "/api/v1/runs/{id}/cancel": control("Cancel", "Stops a run that has not ended; 409 for a run that has."),
    "/api/v1/runs/{id}/pause": control("Pause", "Pauses a queued or running run; 409 otherwise."),
    "/api/v1/runs/{id}/resume": control("Resume", "Continues a paused run; 409 otherwise."),
    "/api/v1/runs/{id}/messages": {
      post: op("operator", "Send the run's agent a message", {
        description:
          "The agent reads it before its next model call; a tool call in flight finishes first unless interrupt is true (then it is stopped and the rest of that turn is skipped). A paused run resumes with it; an ended run (succeeded, failed, canceled) continues with it: same run, same workspace. The event user.message records it; the model.turn that read it lists its seq in messages.",
        parameters: [idParam],
        requestBody: {
          required: true,
          ...json({
            type: "object",
            required: ["text"],
            additionalProperties: false,
            properties: { text: { type: "string", minLength: 1, maxLength: 20000 }, interrupt: { type: "boolean", default: false } },
          }),
        },
        responses: {
          202: { description: "{ delivery: next_turn, seq, interrupted } or { delivery: continued, seq, from }" },
          400: InvalidInput,
          403: Err,
          404: Err,
          409: {
            ...Err,
            description:
              "The run cannot read a message now (its step limit or budget is used up, or it is a trial of an experiment); the message says what to do",
          },
        },
      }),
    },
    "/api/v1/runs/{id}/retry": {
      post: op("operator", "Retry a failed or canceled run from its last good checkpoint", {
        description:
          "Raise what stopped it first, in the same request: maxSteps, budgetUsd (a step limit above 50 needs one), or another model. An agent that ended the run as failed says its last turn again.",
        parameters: [idParam],
        requestBody: {
          ...json({
            type: "object",
            additionalProperties: false,
            properties: {
              maxSteps: { type: "integer", minimum: 1, maximum: 500 },
              budgetUsd: { type: "number", exclusiveMinimum: 0 },
              model: { type: "string" },
            },
          }),
        },
        responses: {
          200: { description: "The run, queued again", ...json(RunRef) },
          400: InvalidInput,
          403: Err,
          404: Err,
          409: {
            ...Err,
            description: "The run did not fail, or would stop again at once (step limit, budget): the message says what to raise",
          },
        },
      }),
    },
    "/api/v1/runs/{id}/rerun": {
      post: op("operator", "Re-run: a new run with this run's goal, agent version and model", {
        description: "Each may be changed. The new run records the old one as its parent (lineage).",
        parameters: [idParam],
        requestBody: {
          ...json({
            type: "object",
            additionalProperties: false,
            properties: {
              goal: { type: "string", maxLength: 20000 },
              model: { type: "string" },
              agentVersion: { type: "integer" },
              maxSteps: { type: "integer", minimum: 1, maximum: 500 },
              budgetUsd: { type: "number", exclusiveMinimum: 0 },
            },
          }),
        },
        responses: { 201: { description: "The new run", ...json(RunRef) }, 400: InvalidInput, 403: Err, 404: Err },
      }),
    },
    "/api/v1/runs/{id}/fork": {
      post: op("operator", "Fork the run from a step", {
        description:
          "A new run that starts after the given step: the conversation, task list and notes as they were then, and the workspace restored exactly from that step's snapshot (files deleted later included). Nothing the parent did is done again. The goal, model, agent version and limits may be changed, and a message added for the fork's first model call.",
        parameters: [idParam],
        requestBody: {
          required: true,
          ...json({
            type: "object",
            required: ["step"],
            additionalProperties: false,
            properties: {
              step: { type: "integer", minimum: 1 },
              goal: { type: "string", maxLength: 20000 },
              model: { type: "string" },
              agentVersion: { type: "integer" },
              maxSteps: { type: "integer", minimum: 1, maximum: 500 },
              budgetUsd: { type: "number", exclusiveMinimum: 0 },
              message: { type: "string", maxLength: 20000 },
            },
          }),
        },
        responses: {
          201: { description: "The fork, queued", ...json(RunRef) },
          400: InvalidInput,
          403: Err,
          404: Err,
          409: { ...Err, description: "No such step yet, or its workspace could not be restored" },
        },
      }),
    },
    "/api/v1/runs/compare": {
      get: op("viewer", "Compare two runs step by step", {
        description:
          "Steps aligned by number (a fork's steps before its fork point are its parent's), the first step where the runs part, and each run's outcome, steps, tokens, cost and duration.",
        parameters: [
          { name: "a", in: "query", required: true, schema: { type: "string" } },
          { name: "b", in: "query", required: true, schema: { type: "string" } },
        ],
        responses: { 200: { description: "{ a, b, rows: [{ step, a, b, same }], firstDivergence }" }, 400: InvalidInput, 404: Err },
      }),
    },
    "/api/v1/runs/{id}/lineage": {
      get: op("viewer", "Where the run comes from and what came of it", {
        parameters: [idParam],
        responses: {
          200: {
            description:
              "{ parent: { id, goal, status, kind: rerun|fork, seq } | null, children: [{ id, goal, status, lineage, parentSeq, createdAt }] }",
          },
          404: Err,
        },
      }),
    },
    "/api/v1/runs/{id}/workspace.tar.gz": {
      get: op("viewer", "The run's workspace as a .tar.gz (without .git), streamed", {
        parameters: [idParam],
        responses: {
          200: {
            description: "The archive (Content-Disposition: attachment; filename=rein-<id>.tar.gz)",
            content: { "application/gzip": { schema: { type: "string", format: "binary" } } },
          },
          404: Err,
          409: { ...Err, description: "The run has not started; its workspace does not exist yet" },
        },
      }),
    },
    "/api/v1/runs/{id}/spans": {
      get: op("viewer", "The run's trace", {
        description: "Spans with parent ids, start/end, attributes (gen_ai.*, rein.*), tokens and cost.",
        parameters: [idParam],
        responses: { 200: { description: "{ traceId, spans, truncated }" }, 404: Err },
      }),
    },
    "/api/v1/agents": {
      get: op("viewer", "The agents you can see, at their latest versions", {
        description: "Your teams' agents and everyone's (admins: all). Archived ones only with includeArchived=true.",
        parameters: [{ name: "includeArchived", in: "query", schema: { enum: ["true", "false"], default: "false" } }],
        responses: {
          200: {
            description:
              "{ agents: [{ name, description, version, model, taskClass, tier, team, builtIn, archived, updatedAt, updatedBy, toolCount }] }",
          },
        },
      }),
      post: op("operator", "Create an agent (version 1)", {
        description: "Needs the operator role in the spec's team; an agent for everyone (teamId null) needs an admin.",
        requestBody: json({
          type: "object",
          required: ["spec"],
          properties: { spec: AgentSpecRef, changeNote: { type: "string", maxLength: 500 } },
        }),
        responses: { 201: agentOut("The agent"), 400: InvalidSpec, 403: Err },
      }),
    },
    "/api/v1/agents/import": {
      post: op("operator", "Create an agent from a YAML file, or save it as a new version", {
        description: "The file is at most 256 KiB, without deep nesting or alias bombs; the same checks as the Agents page.",
        requestBody: json({ type: "object", required: ["yaml"], properties: { yaml: { type: "string" }, changeNote: { type: "string" } } }),
        responses: { 200: agentOut("The agent at its new version"), 400: InvalidSpec, 403: Err },
      }),
    },
    "/api/v1/agents/{name}": {
      get: op("viewer", "An agent at its latest version (or ?version=N)", {
        parameters: [nameParam, { name: "version", in: "query", schema: { type: "integer", minimum: 1 } }],
        responses: { 200: agentOut("The agent"), 404: Err },
      }),
      put: op("operator", "Save a new version of an agent", {
        description:
          "baseVersion is the version the change was made on: 409 when someone saved another since. Built-in agents cannot be changed (copy them).",
        parameters: [nameParam],
        requestBody: json({
          type: "object",
          required: ["spec"],
          properties: { spec: AgentSpecRef, changeNote: { type: "string" }, baseVersion: { type: "integer" } },
        }),
        responses: { 200: agentOut("The agent at its new version"), 400: InvalidSpec, 403: Err, 404: Err, 409: Err },
      }),
    },
    "/api/v1/agents/{name}/versions": {
      get: op("viewer", "An agent's versions, newest first", {
        parameters: [nameParam],
        responses: { 200: { description: "{ versions: [{ version, changeNote, createdAt, createdBy }] }" }, 404: Err },
      }),
    },
    "/api/v1/agents/{name}/versions/{version}": {
      get: op("viewer", "One version of an agent", {
        parameters: [nameParam, versionParam],
        responses: { 200: agentOut("The agent at that version"), 404: Err },
      }),
    },
    "/api/v1/agents/{name}/diff": {
      get: op("viewer", "What changed between two versions", {
        parameters: [
          nameParam,
          { name: "from", in: "query", required: true, schema: { type: "integer" } },
          { name: "to", in: "query", required: true, schema: { type: "integer" } },
        ],
        responses: {
          200: { description: '{ changes: [{ field, label, before, after }], instructions: [{ kind: "same"|"add"|"del", text }] }' },
          404: Err,
        },
      }),
    },
    "/api/v1/agents/{name}/rollback": {
      post: op("operator", "Save a new version equal to an old one", {
        parameters: [nameParam],
        requestBody: json({ type: "object", required: ["version"], properties: { version: { type: "integer" } } }),
        responses: { 200: agentOut("The agent at its new version"), 400: Err, 403: Err, 404: Err },
      }),
    },
    "/api/v1/agents/{name}/archive": {
      post: op("operator", "Archive an agent: hidden from the list, no new runs; its runs and versions stay", {
        parameters: [nameParam],
        responses: { 200: { description: "{ ok }" }, 403: Err, 404: Err },
      }),
    },
    "/api/v1/agents/{name}/unarchive": {
      post: op("operator", "Unarchive an agent", {
        parameters: [nameParam],
        responses: { 200: { description: "{ ok }" }, 403: Err, 404: Err },
      }),
    },
    "/api/v1/agents/{name}/copy": {
      post: op("operator", "Copy an agent (built-ins too) under a new name", {
        description: "The copy belongs to teamId, else the source's team, else your first team where you are an operator.",
        parameters: [nameParam],
        requestBody: json({
          type: "object",
          required: ["name"],
          properties: { name: { type: "string" }, teamId: { type: ["string", "null"] } },
        }),
        responses: { 201: agentOut("The copy, version 1"), 400: InvalidSpec, 404: Err },
      }),
    },
    "/api/v1/agents/{name}/export": {
      get: op("viewer", "An agent as a YAML file (or ?version=N)", {
        parameters: [nameParam, { name: "version", in: "query", schema: { type: "integer", minimum: 1 } }],
        responses: {
          200: {
            description: "The spec (Content-Disposition: attachment; filename=<name>.agent.yaml)",
            content: { "text/yaml": { schema: { type: "string" } } },
          },
          404: Err,
        },
      }),
    },
    "/api/v1/datasets": {
      get: op("viewer", "The Evals datasets you can see", {
        description: "Your teams' datasets and everyone's (admins: all). Archived ones only with includeArchived=true.",
        parameters: [{ name: "includeArchived", in: "query", schema: { enum: ["true", "false"], default: "false" } }],
        responses: { 200: { description: "{ datasets: [Dataset] }" } },
      }),
      post: op("operator", "Create a dataset", {
        description:
          "Needs the operator role in its team; a dataset for everyone (teamId null) needs an admin. The scoring's scorers and threshold are checked; each problem comes back in error.issues.",
        requestBody: json(DatasetBody),
        responses: { 201: datasetOut("The dataset"), 400: InvalidInput, 403: Err, 409: Err },
      }),
    },
    "/api/v1/datasets/{id}": {
      get: op("viewer", "A dataset: its settings, scoring and number of items", {
        parameters: [idParam],
        responses: { 200: datasetOut("The dataset"), 404: Err },
      }),
      patch: op("operator", "Change a dataset's name, description, team or scoring", {
        description: "Send only what changes. Built-in datasets cannot be changed.",
        parameters: [idParam],
        requestBody: json({ ...DatasetBody, required: [] }),
        responses: { 200: datasetOut("The dataset"), 400: InvalidInput, 403: Err, 404: Err, 409: Err },
      }),
      delete: op("admin", "Archive a dataset: hidden from the list; its items and the experiments that ran them stay", {
        parameters: [idParam],
        responses: { 200: Ok, 403: Err, 404: Err },
      }),
    },
    "/api/v1/datasets/{id}/items": {
      get: op("viewer", "A dataset's items: each key's latest version", {
        parameters: [idParam],
        responses: {
          200: { description: "{ items: [{ key, version, goal, agent, scenario, expected, sourceRunId, createdAt, deleted }] }" },
          404: Err,
        },
      }),
      post: op("operator", "Add an item (a key is made when none is given: item-1, item-2, ...)", {
        parameters: [idParam],
        requestBody: json(ItemBody),
        responses: { 201: { description: "The item, version 1" }, 400: InvalidInput, 403: Err, 404: Err, 409: Err },
      }),
    },
    "/api/v1/datasets/{id}/items/{key}": {
      put: op("operator", "Edit an item: saves its next version (nothing when equal to the latest)", {
        description: "Send the fields that change; agent or scenario null clears them. Earlier versions stay.",
        parameters: [idParam, keyParam],
        requestBody: json({ ...ItemBody, required: [] }),
        responses: { 200: { description: "The item at its latest version" }, 400: InvalidInput, 403: Err, 404: Err },
      }),
      delete: op("operator", "Remove an item: its latest version is marked removed; its history stays", {
        parameters: [idParam, keyParam],
        responses: { 200: Ok, 403: Err, 404: Err },
      }),
    },
    "/api/v1/datasets/{id}/export": {
      get: op("viewer", "A dataset's items as JSONL, one item a line", {
        parameters: [idParam],
        responses: {
          200: {
            description: "One { key, goal, agent?, scenario?, expected } a line (Content-Disposition: attachment; filename=<name>.jsonl)",
            content: { "application/x-ndjson": { schema: { type: "string" } } },
          },
          404: Err,
        },
      }),
    },
    "/api/v1/datasets/{id}/import": {
      post: op("operator", "Import items from JSONL: a known key gets its next version, other lines become new items", {
        description:
          'At most 5 MB and 10,000 lines. Every line is checked first; any bad line imports nothing and error.issues lists each problem by line ("line 3: goal is required").',
        parameters: [idParam],
        requestBody: json({ type: "object", required: ["jsonl"], properties: { jsonl: { type: "string" } } }),
        responses: { 200: { description: "{ added, edited, unchanged }" }, 400: InvalidInput, 403: Err, 404: Err, 413: Err },
      }),
    },
    "/api/v1/experiments": {
      get: op("viewer", "Evals experiments you can see, newest first, with their progress", {
        description: "Experiments are seen like runs: the members of the team their runs went to, and whoever started them (admins: all).",
        parameters: [
          { name: "datasetId", in: "query", schema: { type: "string" } },
          {
            name: "status",
            in: "query",
            description: "Comma-separated: queued, running, succeeded, failed, canceled",
            schema: { type: "string" },
          },
          { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 200, default: 50 } },
        ],
        responses: { 200: { description: "{ experiments: [Experiment] }" }, 400: InvalidInput },
      }),
      post: op("operator", "Start an experiment: every item of a dataset × epochs runs as a real run, then is scored", {
        description:
          "Without agent, each item runs with its own agent (latest version now); with agent (and optionally agentVersion) every item runs with it. Items with a scenario play it on the scripted model; the others use model when given. The runs go to teamId (as New run picks it when left out), counted under the workflow eval:<dataset>. Returns at once; follow GET /api/v1/experiments/{id}.",
        requestBody: json({
          type: "object",
          required: ["datasetId"],
          properties: {
            datasetId: { type: "string" },
            agent: { type: "string" },
            agentVersion: { type: "integer", minimum: 1 },
            model: { type: "string", description: "<provider>/<model id>, or auto for the routing rules" },
            epochs: { type: "integer", minimum: 1, maximum: 10, default: 1 },
            concurrency: { type: "integer", minimum: 1, maximum: 8, default: 2 },
            name: { type: "string" },
            teamId: { type: "string" },
            baselineId: { type: "string", description: "The experiment of the same dataset it is compared with by default" },
          },
        }),
        responses: { 201: { description: "The experiment, queued" }, 400: InvalidInput, 403: Err, 404: Err },
      }),
    },
    "/api/v1/experiments/compare": {
      get: op("viewer", "Compare experiments of one dataset item by item against a baseline", {
        description:
          "Each candidate's items are regressed (passed under the baseline, fail now), improved, unchanged, or on one side only, regressions first; with output and tool sequences for diffs, cost and latency deltas, the exact McNemar test on pass/fail and a paired bootstrap on scores.",
        parameters: [
          { name: "ids", in: "query", required: true, description: "2 to 5 experiment ids, comma-separated", schema: { type: "string" } },
          { name: "baseline", in: "query", description: "One of ids; the first when left out", schema: { type: "string" } },
        ],
        responses: {
          200: { description: "{ baseline: { experimentId, summary }, candidates: [{ experimentId, items, outcomes, scores, summary }] }" },
          400: InvalidInput,
          404: Err,
        },
      }),
    },
    "/api/v1/experiments/{id}": {
      get: op("viewer", "An experiment and its progress (trials pending, running, scoring, done, failed; passed; cost so far)", {
        parameters: [idParam],
        responses: { 200: { description: "The experiment" }, 404: Err },
      }),
      delete: op("admin", "Delete a finished experiment and its results; its runs stay in Runs", {
        parameters: [idParam],
        responses: { 200: Ok, 403: Err, 404: Err, 409: Err },
      }),
    },
    "/api/v1/experiments/{id}/results": {
      get: op(
        "viewer",
        "An experiment's results: per item scores, pass@k and pass^k, cost, tokens, latency; per scorer; the mean score with a 95% bootstrap interval",
        {
          parameters: [idParam],
          responses: {
            200: {
              description:
                "{ items, scorers, score: { mean, low, high }, passRate, passAtK, passHatK, costUsd, tokens, latencyMs, flaky, threshold }",
            },
            404: Err,
          },
        },
      ),
    },
    "/api/v1/experiments/{id}/gate": {
      get: op("viewer", "The regression gate: may this finished experiment replace the baseline?", {
        description:
          "Fails when the experiment is significantly worse than the baseline (McNemar p < 0.05 with more regressions, or the score difference's 95% interval below 0) or its mean score is under the dataset's threshold.",
        parameters: [idParam, { name: "baseline", in: "query", required: true, schema: { type: "string" } }],
        responses: {
          200: {
            description:
              "{ passed, reasons, regressed: [{ key, goal, baselineScore, candidateScore }], improved, unchanged, pValue, scoreDiff, candidateScore, threshold }",
          },
          400: InvalidInput,
          404: Err,
          409: Err,
        },
      }),
    },
    "/api/v1/experiments/{id}/cancel": {
      post: op(
        "operator",
        "Cancel an experiment: pending items never start, running ones' runs are canceled; finished items keep their scores",
        {
          parameters: [idParam],
          responses: { 200: { description: "The experiment" }, 403: Err, 404: Err, 409: Err },
        },
      ),
    },
    "/api/v1/friction": {
      get: op("viewer", "Friction Rein recorded from runs, most recently seen first, with its latest occurrences", {
        description:
          "A friction is a way runs keep struggling: a tool failing the same way, an unknown tool, a doom-loop pause, a person rejecting or editing calls. Admins see all; others friction of runs without a team or of their teams.",
        parameters: [
          { name: "agent", in: "query", schema: { type: "string" } },
          { name: "kind", in: "query", description: "e.g. repeated_failure, unknown_tool, doom_loop", schema: { type: "string" } },
          { name: "state", in: "query", schema: { type: "string" } },
          { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 200, default: 50 } },
        ],
        responses: {
          200: {
            description:
              "{ friction: [{ id, kind, title, tool, agentName, state, occurrences, runCount, firstSeenAt, lastSeenAt, items: [{ runId, count, createdAt, evidence }] }] }",
          },
          400: InvalidInput,
        },
      }),
    },
    "/api/v1/improvements": {
      get: op("viewer", "Improvements you can see (runtime tools, skills), newest first, one row per version", {
        description:
          "Improvements made for everyone and for your teams (admins: all). Page with cursor = the nextCursor of the previous answer.",
        parameters: [
          { name: "kind", in: "query", schema: { enum: ["runtime_tool", "skill"] } },
          { name: "tier", in: "query", schema: { type: "integer", minimum: 1, maximum: 4 } },
          { name: "state", in: "query", schema: { enum: ["proposed", "active", "disabled", "expired", "rejected", "superseded"] } },
          { name: "agent", in: "query", description: "Only those scoped to this agent", schema: { type: "string" } },
          { name: "q", in: "query", description: "Text in the name or description", schema: { type: "string" } },
          { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 200, default: 50 } },
          { name: "cursor", in: "query", schema: { type: "string" } },
        ],
        responses: {
          200: {
            description:
              "{ improvements: [{ id, tier, kind, name, version, state, scopeAgents, trust, uses, successes, costUsd, promoted, expiresAt, frictionId, cycleId, authorRunId, createdAt }], nextCursor }",
          },
          400: InvalidInput,
        },
      }),
    },
    "/api/v1/improvements/{id}": {
      get: op(
        "viewer",
        "One improvement: its source, argsSchema, trigger cases and their last results, versions, recent uses, origin friction and hack cycle",
        {
          parameters: [idParam],
          responses: {
            200: { description: "{ ...summary, source, argsSchema, cases, caseResults, previous, versions, uses, friction, cycle }" },
            404: Err,
          },
        },
      ),
    },
    "/api/v1/improvements/{id}/disable": {
      post: op("operator", "Switch an active improvement off; a runtime tool leaves the live registry at once", {
        description: "Needs the operator role in the improvement's team (or overall, for one made for everyone).",
        parameters: [idParam],
        requestBody: json({ type: "object", properties: { reason: { type: "string", maxLength: 500 } } }),
        responses: { 200: { description: "The improvement" }, 400: InvalidInput, 403: Err, 404: Err, 409: Err },
      }),
    },
    "/api/v1/improvements/{id}/enable": {
      post: op(
        "approver",
        "Switch a disabled or expired improvement back on; a runtime tool that was not promoted gets a new 7-day lifetime",
        {
          parameters: [idParam],
          requestBody: json({ type: "object", properties: { reason: { type: "string", maxLength: 500 } } }),
          responses: { 200: { description: "The improvement" }, 400: InvalidInput, 403: Err, 404: Err, 409: Err },
        },
      ),
    },
    "/api/v1/improvements/{id}/promote": {
      post: op("approver", "Keep an active runtime tool for good: it no longer expires", {
        parameters: [idParam],
        requestBody: json({ type: "object", properties: { reason: { type: "string", maxLength: 500 } } }),
        responses: { 200: { description: "The improvement" }, 400: InvalidInput, 403: Err, 404: Err, 409: Err },
      }),
    },
    "/api/v1/skills": {
      get: op("viewer", "Skills you can see, one entry per name with its current version and how runs that loaded it ended", {
        description:
          "Skills made for everyone and for your teams (admins: all). loaded and notLoaded compare ended runs that loaded the skill with ended runs in its scope that did not; omittedRuns counts runs whose prompt left it out for lack of budget.",
        responses: {
          200: {
            description:
              "{ skills: [{ name, id, version, state, stateReason, description, scope: { agents, teams }, tags, versions, updatedAt, useCount, loaded: { runs, succeeded, successRate }, notLoaded: { runs, succeeded, successRate }, omittedRuns }] }",
          },
        },
      }),
    },
    "/api/v1/skills/{name}": {
      get: op("viewer", "One skill: its current SKILL.md, every version with the reviewer's verdict, and the runs that loaded it", {
        parameters: [nameParam],
        responses: {
          200: {
            description:
              "{ name, current: { id, version, state, stateReason, description, source, scope, tags, review }, versions: [{ id, version, state, stateReason, createdAt, createdById, authorRunId, review }], loadedBy: [{ runId, version, toolCallId, at, run }], omittedRuns, useCount, loaded, notLoaded }",
          },
          404: Err,
        },
      }),
      put: op("operator", "Write a skill: the SKILL.md is checked and stored as its next version, active at once", {
        description:
          "The name in the SKILL.md must be the one in the path. A skill for everyone needs the admin role; one scoped to teams needs the operator role in each of them.",
        parameters: [nameParam],
        requestBody: json({
          type: "object",
          required: ["text"],
          properties: {
            text: { type: "string", description: "The whole SKILL.md: front matter (name, description, scope, tags, triggers) and body" },
          },
        }),
        responses: { 200: { description: "The skill, as GET returns it" }, 400: InvalidInput, 403: Err, 409: Err },
      }),
    },
    "/api/v1/skills/{name}/disable": {
      post: op("approver", "Switch a skill's active version off: runs stop seeing it at their next turn", {
        description: "Needs the approver role in the skill's team (or overall, for one made for everyone).",
        parameters: [nameParam],
        requestBody: json({ type: "object", properties: { reason: { type: "string", maxLength: 500 } } }),
        responses: { 200: { description: "The skill" }, 400: InvalidInput, 403: Err, 404: Err, 409: Err },
      }),
    },
    "/api/v1/skills/{name}/enable": {
      post: op("approver", "Switch a skill's latest disabled version back on", {
        parameters: [nameParam],
        requestBody: json({ type: "object", properties: { reason: { type: "string", maxLength: 500 } } }),
        responses: { 200: { description: "The skill" }, 400: InvalidInput, 403: Err, 404: Err, 409: Err },
      }),
    },
    "/api/v1/memories": {
      get: op("viewer", "Memories of your teams (admins: all): pinned first then newest, or best match first with q", {
        description:
          "Agents save memories with remember; every run leaves an episode. A team-less run's memories are seen by the person who launched it (and admins).",
        parameters: [
          {
            name: "q",
            in: "query",
            description: "Words to search for (full text, best match first); punctuation and search syntax are ignored",
            schema: { type: "string", maxLength: 4000 },
          },
          { name: "agent", in: "query", schema: { type: "string" } },
          { name: "kind", in: "query", schema: { enum: ["fact", "procedure", "preference", "episode"] } },
          { name: "state", in: "query", schema: { enum: ["active", "pending", "rejected"] } },
          { name: "scope", in: "query", schema: { enum: ["agent", "team"] } },
          { name: "teamId", in: "query", schema: { type: "string" } },
          { name: "pinned", in: "query", schema: { enum: ["true", "false"] } },
          { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 200 } },
          { name: "cursor", in: "query", description: "nextCursor of the previous page (without q)", schema: { type: "string" } },
        ],
        responses: {
          200: {
            description:
              "{ items: [{ id, scope: agent|team, agentName, teamId, ownerId, kind: fact|procedure|preference|episode, title, text, state: active|pending|rejected, pinned, sourceRunId, requestId, createdBy, decidedById, decidedAt, uses, lastUsedAt, createdAt, updatedAt }], nextCursor }",
          },
          400: InvalidInput,
        },
      }),
    },
    "/api/v1/memories/{id}": {
      get: op("viewer", "One memory", {
        parameters: [idParam],
        responses: {
          200: {
            description:
              "{ id, scope: agent|team, agentName, teamId, ownerId, kind: fact|procedure|preference|episode, title, text, state: active|pending|rejected, pinned, sourceRunId, requestId, createdBy, decidedById, decidedAt, uses, lastUsedAt, createdAt, updatedAt }",
          },
          404: Err,
        },
      }),
      patch: op("operator", "Edit a memory (title, text, kind, pinned), or keep (state=active) or discard (state=rejected) a pending one", {
        description: "Needs the operator role in the memory's team. Text is at most 2,000 characters.",
        parameters: [idParam],
        requestBody: json({
          type: "object",
          properties: {
            title: { type: "string", maxLength: 200 },
            text: { type: "string", maxLength: 2000 },
            kind: { enum: ["fact", "procedure", "preference", "episode"] },
            pinned: { type: "boolean" },
            state: { enum: ["active", "rejected"] },
          },
        }),
        responses: { 200: { description: "The memory" }, 400: InvalidInput, 403: Err, 404: Err },
      }),
      delete: op("operator", "Delete a memory", {
        parameters: [idParam],
        responses: { 200: { description: "{ id, deleted: true }" }, 403: Err, 404: Err },
      }),
    },
    "/api/v1/memories/{id}/pin": {
      post: op("operator", "Pin a memory (pinned=false unpins): pinned memories load first into every run in its scope", {
        parameters: [idParam],
        requestBody: json({ type: "object", properties: { pinned: { type: "boolean", default: true } } }),
        responses: { 200: { description: "The memory" }, 400: InvalidInput, 403: Err, 404: Err },
      }),
    },
    "/api/v1/extensions": {
      get: op("viewer", "Extensions (tier 2), newest first, one row per version; removed ones only with state=removed", {
        parameters: [
          {
            name: "state",
            in: "query",
            schema: {
              enum: ["proposed", "testing", "failed", "awaiting_approval", "rejected", "installed", "disabled", "superseded", "removed"],
            },
          },
          { name: "name", in: "query", schema: { type: "string", maxLength: 64 } },
        ],
        responses: {
          200: {
            description:
              "{ extensions: [{ id, name, version, state, stateReason, description, capabilities, tools, skills, hooks, tests: { ok, passed, failed }, createdAt, updatedAt }] }",
          },
          400: InvalidInput,
        },
      }),
      post: op(
        "admin",
        "Propose an extension package: it is checked, built and all its tests run in the sandbox; it is installed only if they all pass",
        {
          description:
            "The body is the package: { manifest: { name, version, description, capabilities, tools?, skills?, hooks?, replay? }, files: { path: text } }. " +
            "A package whose gate fails ends failed and is never installed. One that passes waits for another admin's approval while the setting extensionsRequireApproval is on (the default), else it is installed at once; it supersedes an older installed version.",
          requestBody: json({
            type: "object",
            required: ["manifest", "files"],
            properties: { manifest: { type: "object" }, files: { type: "object", additionalProperties: { type: "string" } } },
          }),
          responses: {
            201: { description: "The extension, as GET /api/v1/extensions/{id} returns it" },
            400: InvalidInput,
            403: Err,
            409: Err,
            503: Err,
          },
        },
      ),
    },
    "/api/v1/extensions/{id}": {
      get: op("viewer", "One extension: its manifest, files and the gate's results, test by test", {
        parameters: [idParam],
        responses: {
          200: {
            description:
              "{ ...summary, manifest, files, testResults: { ok, passed, failed, summary, untested, build, results: [{ file, name, ok, message, durationMs }] }, authorRunId, createdBy }",
          },
          404: Err,
        },
      }),
      delete: op("admin", "Remove an extension: its tools leave every run at once", {
        parameters: [idParam],
        responses: { 200: { description: "The extension" }, 403: Err, 404: Err, 409: Err, 503: Err },
      }),
    },
    "/api/v1/extensions/{id}/disable": {
      post: op("approver", "Switch an installed extension off: its tools and hooks leave every run at once", {
        description: "Extensions serve every team: needs the approver role of the person (not of one team).",
        parameters: [idParam],
        requestBody: json({ type: "object", properties: { reason: { type: "string", maxLength: 500 } } }),
        responses: { 200: { description: "The extension" }, 400: InvalidInput, 403: Err, 404: Err, 409: Err, 503: Err },
      }),
    },
    "/api/v1/extensions/{id}/enable": {
      post: op("approver", "Switch a disabled extension back on (when no other version of it is installed)", {
        parameters: [idParam],
        requestBody: json({ type: "object", properties: { reason: { type: "string", maxLength: 500 } } }),
        responses: { 200: { description: "The extension" }, 400: InvalidInput, 403: Err, 404: Err, 409: Err, 503: Err },
      }),
    },
    "/api/v1/extensions/{id}/approve": {
      post: op("admin", "Approve an extension whose gate passed: it is installed; never by the person who proposed it", {
        parameters: [idParam],
        requestBody: json({ type: "object", properties: { reason: { type: "string", maxLength: 500 } } }),
        responses: { 200: { description: "The extension" }, 400: InvalidInput, 403: Err, 404: Err, 409: Err, 503: Err },
      }),
    },
    "/api/v1/extensions/{id}/reject": {
      post: op("admin", "Reject an extension waiting for approval: it is never installed", {
        parameters: [idParam],
        requestBody: json({ type: "object", properties: { reason: { type: "string", maxLength: 500 } } }),
        responses: { 200: { description: "The extension" }, 400: InvalidInput, 403: Err, 404: Err, 409: Err, 503: Err },
      }),
    },
    "/api/v1/repositories": {
      get: op("viewer", "Repositories agents may propose changes to (yours and everyone's; admins: all)", {
        parameters: [{ name: "archived", in: "query", description: "true: archived ones too", schema: { type: "boolean" } }],
        responses: {
          200: {
            description:
              "{ repositories: [{ id, name, source, kind, defaultBranch, testCommand, testTimeoutSec, protectedPaths, evalDatasetId, teamId, builtIn, archived, createdAt, updatedAt }] }",
          },
        },
      }),
      post: op("admin", "Register a repository: a local path or a git URL the server can reach", {
        description:
          "A URL is cloned bare into the data directory; a local path is used where it is (never the server's own running checkout). protectedPaths are globs a change may not touch; Rein's own folders are protected in Rein's own repository whatever the list says.",
        requestBody: json({
          type: "object",
          required: ["name", "source", "testCommand"],
          properties: {
            name: { type: "string", pattern: "^[a-z0-9][a-z0-9._-]{0,62}$" },
            source: { type: "string", description: "An absolute path, or an https://, ssh:// or file:// URL" },
            defaultBranch: { type: "string", default: "main" },
            testCommand: { type: "string", description: "Runs in a sandbox over a clean checkout of the change, with no network" },
            testTimeoutSec: { type: "integer", minimum: 5, maximum: 3600, default: 600 },
            protectedPaths: { type: "array", items: { type: "string" } },
            evalDatasetId: { type: ["string", "null"] },
            teamId: { type: ["string", "null"], description: "null: every team sees it" },
          },
        }),
        responses: { 201: { description: "The repository" }, 400: InvalidInput, 403: Err, 409: Err },
      }),
    },
    "/api/v1/repositories/{id}": {
      get: op("viewer", "One repository", { parameters: [idParam], responses: { 200: { description: "The repository" }, 404: Err } }),
      patch: op("admin", "Change a repository: any field but its source", {
        parameters: [idParam],
        requestBody: json({
          type: "object",
          properties: {
            name: { type: "string" },
            defaultBranch: { type: "string" },
            testCommand: { type: "string" },
            testTimeoutSec: { type: "integer" },
            protectedPaths: { type: "array", items: { type: "string" } },
            evalDatasetId: { type: ["string", "null"] },
            teamId: { type: ["string", "null"] },
          },
        }),
        responses: { 200: { description: "The repository" }, 400: InvalidInput, 403: Err, 404: Err, 409: Err },
      }),
    },
    "/api/v1/repositories/{id}/archive": {
      post: op("admin", "Archive (or restore) a repository: archived ones take no new change requests", {
        parameters: [idParam],
        requestBody: json({ type: "object", required: ["archived"], properties: { archived: { type: "boolean" } } }),
        responses: { 200: { description: "The repository" }, 400: InvalidInput, 403: Err, 404: Err },
      }),
    },
    "/api/v1/change-requests": {
      get: op("viewer", "Change requests you can see, newest first", {
        parameters: [
          {
            name: "state",
            in: "query",
            description: "Comma-separated: draft, checks_running, checks_failed, awaiting_review, merged, rejected, reverted",
            schema: { type: "string" },
          },
          { name: "repository", in: "query", description: "A repository id", schema: { type: "string" } },
          { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 200, default: 50 } },
        ],
        responses: {
          200: {
            description:
              "{ changeRequests: [{ id, title, hypothesis, state, stateReason, branch, baseCommit, headCommit, mergeCommit, revertCommit, files, diffStat, checks, repository, authorRun, createdAt, updatedAt }] }",
          },
          400: InvalidInput,
        },
      }),
      post: op("operator", "Start a change: an agent works on a worktree of the repository and proposes the change", {
        description:
          "Launches the agent (default demo-fix) in a run whose workspace is a git worktree of a branch of its own. Its propose_change commits, runs the checks and asks an approver; nothing merges without that approval.",
        requestBody: json({
          type: "object",
          required: ["repositoryId", "goal"],
          properties: {
            repositoryId: { type: "string" },
            goal: { type: "string" },
            agent: { type: "string", default: "demo-fix" },
            model: { type: "string" },
            teamId: { type: "string" },
          },
        }),
        responses: {
          201: { description: "The change request (draft), as GET returns it" },
          400: InvalidInput,
          403: Err,
          404: Err,
          409: Err,
        },
      }),
    },
    "/api/v1/change-requests/{id}": {
      get: op("viewer", "One change request: the diff, files by risk, checks, the author run, the approval and what you may do", {
        parameters: [idParam],
        responses: {
          200: {
            description:
              "{ id, title, hypothesis, state, stateReason, repository, authorRun, files, filesByRisk, diffStat, diff: { text, truncated }, checks, checkRuns, approval, friction, mergeBlockedBy, you: { launchedIt, mayApprove, mayReject, mayRevert, mayRerun } }",
          },
          404: Err,
        },
      }),
    },
    "/api/v1/change-requests/{id}/checks": {
      get: op("viewer", "The change's check runs with their logs (capped at 256 KiB each)", {
        parameters: [idParam],
        responses: { 200: { description: "{ checks: [{ id, kind, state, exitCode, durationMs, startedAt, endedAt, log }] }" }, 404: Err },
      }),
      post: op("operator", "Run the checks again (on the change's head)", {
        parameters: [idParam],
        responses: { 200: { description: "The change request after its checks" }, 403: Err, 404: Err, 409: Err },
      }),
    },
    "/api/v1/change-requests/{id}/merge": {
      post: op("approver", "Approve and merge: decides the change's approve request as you, then merges if its checks passed", {
        description:
          "The person who launched the run that wrote the change cannot approve it (403). A target branch that moved is tested again first; a change that no longer applies is refused and goes back to checks_failed.",
        parameters: [idParam],
        requestBody: json({ type: "object", properties: { comment: { type: "string", maxLength: 4000 } } }),
        responses: {
          200: { description: "The change request (merged, or why not in stateReason)" },
          400: InvalidInput,
          403: Err,
          404: Err,
          409: Err,
        },
      }),
    },
    "/api/v1/change-requests/{id}/reject": {
      post: op("operator", "Reject (approvers) or withdraw (the launcher) an open change request, with a comment", {
        parameters: [idParam],
        requestBody: json({ type: "object", properties: { comment: { type: "string", maxLength: 4000 } } }),
        responses: { 200: { description: "The change request" }, 400: InvalidInput, 403: Err, 404: Err, 409: Err },
      }),
    },
    "/api/v1/change-requests/{id}/revert": {
      post: op("approver", "Revert a merged change: one more commit on the target restores the tree before the merge; audited", {
        parameters: [idParam],
        responses: { 200: { description: "The change request (reverted)" }, 403: Err, 404: Err, 409: Err },
      }),
    },
    "/api/v1/mcp-servers": {
      get: op("admin", "The MCP servers attached, with their health, and the token budget of the MCP tools one agent gets", {
        responses: {
          200: { description: "{ servers: [server], budget: { tokens, default, agents: [{ agent, tools, tokens }], overBudget } }" },
          403: Err,
        },
      }),
      post: op(
        "admin",
        "Attach an MCP server: a program run in the sandbox over stdio, or a Streamable HTTP address; Rein starts it and pins its tools (all off)",
        {
          description:
            'Variables and headers name Rein secrets ({ "secret": "NAME" }); their values are read when the server starts and are never returned.',
          requestBody: json({
            type: "object",
            required: ["name", "transport"],
            properties: {
              name: { type: "string", pattern: "^[a-z][a-z0-9-]{0,30}$" },
              transport: { enum: ["stdio", "http"] },
              stdio: McpStdio,
              http: McpHttp,
              enabled: { type: "boolean", default: true },
              callTimeoutSec: {
                type: "integer",
                minimum: 1,
                maximum: 3600,
                default: 600,
                description: "The longest one call may take, progress or not",
              },
            },
          }),
          responses: { 201: McpServerOut, 400: InvalidInput, 403: Err, 409: Err },
        },
      ),
    },
    "/api/v1/mcp-servers/demo": {
      post: op("admin", "Attach the bundled demo server (everything, the MCP project's reference server; works offline) as everything", {
        responses: { 201: McpServerOut, 403: Err, 409: Err },
      }),
    },
    "/api/v1/mcp-servers/token-budget": {
      put: op(
        "admin",
        "Set the token budget of the MCP tool definitions one agent gets; tools beyond it are left out of a run, which says so",
        {
          requestBody: json({
            type: "object",
            required: ["tokens"],
            properties: { tokens: { type: "integer", minimum: 500, maximum: 500000 } },
          }),
          responses: { 200: { description: "{ tokens }" }, 400: InvalidInput, 403: Err },
        },
      ),
    },
    "/api/v1/mcp-servers/{name}": {
      get: op("admin", "One MCP server with its tools", {
        parameters: [mcpNameParam],
        responses: { 200: McpServerOut, 403: Err, 404: Err },
      }),
      patch: op("admin", "Change an MCP server (turn it off or on, its config, its call time limit); it restarts", {
        parameters: [mcpNameParam],
        requestBody: json({
          type: "object",
          properties: {
            enabled: { type: "boolean" },
            callTimeoutSec: { type: "integer", minimum: 1, maximum: 3600 },
            stdio: McpStdio,
            http: McpHttp,
          },
        }),
        responses: { 200: McpServerOut, 400: InvalidInput, 403: Err, 404: Err },
      }),
      delete: op("admin", "Remove an MCP server: it stops and its tools leave every agent", {
        parameters: [mcpNameParam],
        responses: { 200: { description: "{ ok: true }" }, 403: Err, 404: Err },
      }),
    },
    "/api/v1/mcp-servers/{name}/test": {
      post: op("admin", "Restart an MCP server now and report its health (and, when it failed, the end of its stderr)", {
        parameters: [mcpNameParam],
        responses: { 200: McpServerOut, 403: Err, 404: Err, 409: Err },
      }),
    },
    "/api/v1/mcp-servers/{name}/tools": {
      get: op("admin", "An MCP server's tools: pinned definitions, state, annotations, replay class, scope and token cost", {
        parameters: [mcpNameParam],
        responses: { 200: { description: "{ tools: [tool] }" }, 403: Err, 404: Err },
      }),
    },
    "/api/v1/mcp-servers/{name}/tools/{tool}": {
      patch: op("admin", 'Turn an MCP tool on or off, override its replay class, and say which agents and teams get it ("*": any)', {
        parameters: [mcpNameParam, mcpToolParam],
        requestBody: json({
          type: "object",
          properties: {
            enabled: { type: "boolean" },
            replayOverride: {
              enum: ["pure", "idempotent_with_key", "unsafe_on_replay", null],
              description: "null: from the tool's annotations",
            },
            allowedAgents: { type: "array", items: { type: "string" } },
            allowedTeams: {
              type: "array",
              items: { type: "string" },
              description: "Team ids, * for any; a team's name is accepted and stored as its id",
            },
          },
        }),
        responses: { 200: McpToolOut, 400: InvalidInput, 403: Err, 404: Err, 409: Err },
      }),
    },
    "/api/v1/mcp-servers/{name}/tools/{tool}/review": {
      post: op(
        "admin",
        "Review a tool whose definition changed since it was approved: accept pins the new one and turns it back on, reject keeps it off",
        {
          parameters: [mcpNameParam, mcpToolParam],
          requestBody: json({ type: "object", required: ["accept"], properties: { accept: { type: "boolean" } } }),
          responses: { 200: McpToolOut, 400: InvalidInput, 403: Err, 404: Err, 409: Err },
        },
      ),
    },
    "/api/v1/webhooks": {
      get: op("admin", "The signed webhook endpoints, with their event types, state and delivery counts", {
        responses: { 200: { description: "{ webhooks: [endpoint] }" }, 403: Err },
      }),
      post: op("admin", "Add a webhook endpoint; the answer holds its signing secret (whsec_…), shown this once", {
        description:
          "Deliveries follow Standard Webhooks: headers webhook-id (stable per message, for dedupe), webhook-timestamp and webhook-signature (v1,<base64 HMAC-SHA256 of id.timestamp.body>). The URL must resolve to public addresses unless an admin allowed its host.",
        requestBody: json({
          type: "object",
          required: ["url", "eventTypes"],
          properties: {
            url: { type: "string", format: "uri" },
            description: { type: "string", maxLength: 300 },
            eventTypes: { type: "array", items: { enum: [...WEBHOOK_EVENT_TYPES, "*"] }, minItems: 1 },
            teamId: { type: ["string", "null"], description: "Only this team's runs; null for every team" },
          },
        }),
        responses: { 201: { description: "{ endpoint, secret }" }, 400: InvalidInput, 403: Err },
      }),
    },
    "/api/v1/webhooks/allowed-hosts": {
      get: op("admin", "Hosts webhooks may reach although they resolve to loopback or private addresses", {
        responses: { 200: { description: "{ hosts: [string] }" }, 403: Err },
      }),
      put: op("admin", "Set the hosts webhooks may reach although they are not public (a receiver inside your network)", {
        requestBody: json({
          type: "object",
          required: ["hosts"],
          properties: { hosts: { type: "array", items: { type: "string" }, maxItems: 50 } },
        }),
        responses: { 200: { description: "{ hosts: [string] }" }, 400: InvalidInput, 403: Err },
      }),
    },
    "/api/v1/webhooks/deliveries/{id}": {
      get: op(
        "admin",
        "One delivery: its payload and every attempt (request headers, response status, headers and first KiB of body, duration, next retry)",
        { parameters: [idParam], responses: { 200: { description: "delivery with log: [attempt]" }, 403: Err, 404: Err } },
      ),
    },
    "/api/v1/webhooks/deliveries/{id}/resend": {
      post: op("admin", "Send one delivery again now, with the same webhook-id", {
        parameters: [idParam],
        responses: { 200: { description: "the attempt, with delivered: boolean" }, 403: Err, 404: Err, 409: Err },
      }),
    },
    "/api/v1/webhooks/{id}": {
      get: op("admin", "One webhook endpoint", {
        parameters: [idParam],
        responses: { 200: { description: "endpoint" }, 403: Err, 404: Err },
      }),
      patch: op("admin", "Change an endpoint: URL, description, event types, team, or enabled (false turns it off, true back on)", {
        parameters: [idParam],
        requestBody: json({
          type: "object",
          properties: {
            url: { type: "string" },
            description: { type: "string" },
            eventTypes: { type: "array", items: { type: "string" } },
            teamId: { type: ["string", "null"] },
            enabled: { type: "boolean" },
          },
        }),
        responses: { 200: { description: "endpoint" }, 400: InvalidInput, 403: Err, 404: Err },
      }),
      delete: op("admin", "Remove an endpoint and its delivery log", {
        parameters: [idParam],
        responses: { 200: { description: "{ ok: true }" }, 403: Err, 404: Err },
      }),
    },
    "/api/v1/webhooks/{id}/deliveries": {
      get: op("admin", "An endpoint's deliveries, newest first", {
        parameters: [
          idParam,
          { name: "state", in: "query", schema: { enum: ["pending", "succeeded", "failed"] } },
          { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 200, default: 50 } },
          { name: "before", in: "query", description: "The last id of the previous page", schema: { type: "string" } },
        ],
        responses: { 200: { description: "{ deliveries: [delivery], next: string | null }" }, 400: Err, 403: Err, 404: Err },
      }),
    },
    "/api/v1/webhooks/{id}/test": {
      post: op("admin", "Send a test ping (type webhook.test) now and report how the endpoint answered", {
        parameters: [idParam],
        responses: { 200: { description: "the attempt, with delivered: boolean" }, 403: Err, 404: Err },
      }),
    },
    "/api/v1/webhooks/{id}/rotate": {
      post: op("admin", "A new signing secret, shown this once; the old one also signs for 24 hours", {
        parameters: [idParam],
        responses: { 200: { description: "{ endpoint, secret }" }, 403: Err, 404: Err },
      }),
    },
    "/api/v1/webhooks/{id}/recover": {
      post: op("admin", "Send again everything since a time that this endpoint did not receive (at most 7 days back)", {
        parameters: [idParam],
        requestBody: json({ type: "object", required: ["since"], properties: { since: { type: "string", format: "date-time" } } }),
        responses: { 200: { description: "{ queued: number }" }, 400: InvalidInput, 403: Err, 404: Err, 409: Err },
      }),
    },
    "/api/v1/costs": {
      get: op("viewer", "Cost and token totals by team, workflow or model", {
        description: "From the daily rollups; admins see every team, others their teams.",
        parameters: [
          { name: "groupBy", in: "query", schema: { enum: ["team", "workflow", "model"], default: "model" } },
          {
            name: "from",
            in: "query",
            description: "First day, inclusive (ISO date or date-time, UTC); default 29 days before to",
            schema: { type: "string", format: "date" },
          },
          {
            name: "to",
            in: "query",
            description: "Last day, inclusive (ISO date or date-time, UTC); default today",
            schema: { type: "string", format: "date" },
          },
        ],
        responses: {
          200: {
            description: "{ from, to, groupBy, scope, totals, groups, series, tokensByModel, runsByOutcome, unpricedModels }",
            ...json({
              type: "object",
              properties: {
                from: { type: "string", format: "date" },
                to: { type: "string", format: "date" },
                groupBy: { enum: ["team", "workflow", "model"] },
                scope: { enum: ["all", "teams"] },
                totals: { $ref: "#/components/schemas/CostTotals" },
                groups: {
                  type: "array",
                  items: {
                    allOf: [
                      { $ref: "#/components/schemas/CostTotals" },
                      { type: "object", properties: { key: { type: "string" }, label: { type: "string" } } },
                    ],
                  },
                },
                runsByOutcome: {
                  type: "array",
                  items: { type: "object", properties: { status: { type: "string" }, count: { type: "integer" } } },
                },
                unpricedModels: { type: "array", items: { type: "string" } },
              },
            }),
          },
          400: Err,
          401: Err,
        },
      }),
    },
    "/api/v1/spans": {
      get: op("viewer", "Spans across runs, newest first", {
        description: "Admins see every span, others the spans of their teams' runs and of runs they launched.",
        parameters: [
          { name: "kind", in: "query", schema: { enum: ["run", "invoke_agent", "chat", "execute_tool", "human_request", "tier"] } },
          { name: "model", in: "query", schema: { type: "string" } },
          { name: "tool", in: "query", schema: { type: "string" } },
          { name: "teamId", in: "query", schema: { type: "string" } },
          { name: "workflowId", in: "query", schema: { type: "string" } },
          { name: "status", in: "query", description: "open: not ended yet", schema: { enum: ["ok", "error", "unset", "open"] } },
          { name: "minDurationMs", in: "query", schema: { type: "number", minimum: 0 } },
          { name: "maxDurationMs", in: "query", schema: { type: "number", minimum: 0 } },
          { name: "minCostUsd", in: "query", schema: { type: "number", minimum: 0 } },
          {
            name: "from",
            in: "query",
            description: "Started at or after (ISO date-time); default 7 days before to; the range is at most 31 days",
            schema: { type: "string", format: "date-time" },
          },
          {
            name: "to",
            in: "query",
            description: "Started at or before (ISO date-time); default now",
            schema: { type: "string", format: "date-time" },
          },
          { name: "q", in: "query", description: "Part of the span's name, any case", schema: { type: "string" } },
          { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 200, default: 50 } },
          { name: "cursor", in: "query", description: "nextCursor of the page before", schema: { type: "string" } },
        ],
        responses: {
          200: { description: "{ spans (each with runId and runGoal, durationMs, tokens, costUsd), nextCursor, from, to }" },
          400: Err,
          401: Err,
        },
      }),
    },
    "/api/v1/providers": {
      get: op("admin", "Model providers, keys masked", { responses: { 200: { description: "{ providers }" }, 403: Err } }),
      post: op("admin", "Add a model provider", {
        requestBody: json({
          type: "object",
          required: ["name", "kind"],
          properties: {
            name: { type: "string", description: "Lower case; the first part of model names, e.g. local in local/llama3" },
            kind: { enum: ["openai", "anthropic", "openai-compatible"] },
            baseUrl: { type: "string", description: "Required for openai-compatible, e.g. http://localhost:11434/v1" },
            apiKey: { type: "string", description: "Required for openai and anthropic; stored encrypted" },
            selfHosted: { type: "boolean" },
            enabled: { type: "boolean" },
          },
        }),
        responses: { 201: { description: "The provider", ...json(Provider) }, 400: Err, 403: Err, 409: Err },
      }),
    },
    "/api/v1/providers/{name}": {
      get: op("admin", "A model provider", {
        parameters: [nameParam],
        responses: { 200: { description: "The provider", ...json(Provider) }, 404: Err },
      }),
      patch: op("admin", "Change a model provider", {
        description: "Any of baseUrl, apiKey (null removes it), selfHosted, enabled.",
        parameters: [nameParam],
        responses: { 200: { description: "The provider", ...json(Provider) }, 400: Err, 404: Err },
      }),
      delete: op("admin", "Delete a model provider, its models and its key", {
        parameters: [nameParam],
        responses: { 200: { description: "{ ok }" }, 404: Err },
      }),
    },
    "/api/v1/providers/{name}/test": {
      post: op("admin", "Test a provider: ask it for its models with the stored key", {
        parameters: [nameParam],
        responses: { 200: { description: "{ ok, models, latencyMs, error? }" }, 404: Err },
      }),
    },
    "/api/v1/models": {
      get: op("admin", "Configured models with their prices", { responses: { 200: { description: "{ models }" } } }),
      post: op("admin", "Add or change a model", {
        requestBody: json({
          type: "object",
          required: ["provider", "modelId", "family"],
          properties: {
            provider: { type: "string" },
            modelId: { type: "string" },
            family: { type: "string", description: "e.g. gpt, claude, llama: judges never share the family of the agent they judge" },
            contextWindow: { type: "integer" },
            maxOutputTokens: { type: "integer" },
            tools: { type: "boolean" },
            vision: { type: "boolean" },
            streaming: { type: "boolean" },
            strength: { type: "number", minimum: 0, maximum: 1 },
            enabled: { type: "boolean" },
            prices: {
              type: "object",
              description: "USD per million tokens: inputPerMTok, outputPerMTok, cacheReadPerMTok, cacheWritePerMTok",
            },
          },
        }),
        responses: { 201: { description: "The model" }, 400: Err, 404: Err },
      }),
    },
    "/api/v1/models/{provider}/{modelId}": {
      delete: op("admin", "Delete a model (the model id may contain slashes)", {
        parameters: [
          { name: "provider", in: "path", required: true, schema: { type: "string" } },
          { name: "modelId", in: "path", required: true, schema: { type: "string" } },
        ],
        responses: { 200: { description: "{ ok }" }, 404: Err },
      }),
    },
    "/api/v1/secrets": {
      get: op("admin", "Secrets, never a value", {
        description:
          "Names, the variable each reaches tools as, who created it, created/updated/last used, who may be given it. Provider keys are not listed.",
        responses: { 200: { description: "{ secrets: [{ name, env, scope, createdBy, createdAt, updatedAt, lastUsedAt }] }" }, 403: Err },
      }),
      post: op("admin", "Add a secret or replace its value", {
        description: "Stored encrypted, never returned.",
        requestBody: json({
          type: "object",
          required: ["name", "value"],
          properties: {
            name: { type: "string", description: "Starts with a letter or _; letters, digits and _ . : / - (at most 128); not provider/…" },
            value: { type: "string", description: "At most 64 KiB" },
            scope: { ...Scope, description: "Who may be given it; nobody until set" },
          },
        }),
        responses: { 200: { description: "The secret, without its value" }, 400: Err, 403: Err },
      }),
    },
    "/api/v1/secrets/{name}": {
      delete: op("admin", "Delete a secret (a name with slashes may be sent as is)", {
        parameters: [nameParam],
        responses: { 200: { description: "{ ok }" }, 400: Err, 404: Err },
      }),
    },
    "/api/v1/secrets/{name}/scope": {
      put: op("admin", "Say who may be given a secret: agents and teams", {
        parameters: [nameParam],
        requestBody: json(Scope),
        responses: { 200: { description: "The secret, without its value" }, 400: Err, 404: Err },
      }),
    },
    "/api/v1/routing": {
      get: op("admin", "Routing rules per task class, sensitivity pools and team pools", {
        responses: { 200: { description: "{ rules, pools, teamPools, updatedAt }" } },
      }),
      put: op("admin", "Replace the routing rules, pools and team pools", {
        requestBody: json({
          type: "object",
          properties: {
            rules: {
              type: "object",
              description: '{ plan|code|classify|summarize|judge: { strategy: ordered|cheapest, candidates: ["<provider>/<model id>"] } }',
            },
            pools: {
              type: "array",
              items: {
                type: "object",
                properties: {
                  name: { type: "string" },
                  selfHosted: { type: "boolean" },
                  models: { type: "array", items: { type: "string" } },
                },
              },
            },
            teamPools: { type: "object", description: "team id → pool name" },
          },
        }),
        responses: { 200: { description: "The saved routing" }, 400: Err },
      }),
    },
    "/api/v1/users": {
      get: op("admin", "People: roles, teams, status, last seen", {
        responses: {
          200: {
            description:
              "{ users: [{ id, email, name, role, status, createdAt, lastSeenAt, disabledAt, teams: [{ id, name, role, effectiveRole }] }] }",
          },
          403: Err,
        },
      }),
      post: op("admin", "Add a person with a password", {
        requestBody: json({
          type: "object",
          required: ["email", "password", "role"],
          properties: {
            email: { type: "string" },
            name: { type: "string" },
            password: { type: "string", minLength: 8 },
            role: { ...RoleEnum, description: "Their own role: the least they have in every team" },
            teamId: { type: "string", description: "The team they join (default: the default team)" },
            teamRole: { ...RoleEnum, description: "Their role in that team (default viewer)" },
          },
        }),
        responses: { 201: { description: "{ id }" }, 400: Err, 403: Err, 404: Err, 409: { ...Err, description: "The e-mail is taken" } },
      }),
    },
    "/api/v1/users/{id}": {
      patch: op("admin", "Change a person's role or name", {
        description: "The last active admin cannot be demoted, nor can you remove your own admin role.",
        parameters: [idParam],
        requestBody: json({ type: "object", properties: { role: RoleEnum, name: { type: "string" } } }),
        responses: { 200: Ok, 400: Err, 404: Err, 409: { ...Err, description: "The last active admin" } },
      }),
    },
    "/api/v1/users/{id}/disable": {
      post: op("admin", "Disable a person: their sessions, API tokens and sockets stop working at once", {
        description: "Refused for yourself and for the last active admin.",
        parameters: [idParam],
        responses: { 200: Ok, 400: Err, 404: Err, 409: Err },
      }),
    },
    "/api/v1/users/{id}/enable": {
      post: op("admin", "Enable a disabled person", { parameters: [idParam], responses: { 200: Ok, 404: Err } }),
    },
    "/api/v1/users/{id}/reset-link": {
      post: op("admin", "A single-use password-reset link, valid 24 hours", {
        description: "Using it sets the password and ends every session of that person. A newer link replaces the older one.",
        parameters: [idParam],
        responses: { 200: { description: "{ url, expiresAt }", ...Link }, 404: Err, 409: Err },
      }),
    },
    "/api/v1/invitations": {
      get: op("admin", "Invitations and their state (pending, expired, used, revoked)", {
        responses: {
          200: { description: "{ invitations: [{ id, email, role, team, teamRole, createdAt, expiresAt, createdBy, state }] }" },
          403: Err,
        },
      }),
      post: op("admin", "Invite a person: a single-use link valid 7 days", {
        description: "A newer invitation for the same e-mail replaces the older one.",
        requestBody: json({
          type: "object",
          required: ["email", "role"],
          properties: {
            email: { type: "string" },
            name: { type: "string" },
            role: RoleEnum,
            teamId: { type: "string" },
            teamRole: RoleEnum,
          },
        }),
        responses: {
          201: { description: "{ id, url, expiresAt }", ...Link },
          400: Err,
          404: Err,
          409: { ...Err, description: "A user with that e-mail exists" },
        },
      }),
    },
    "/api/v1/invitations/{id}": {
      delete: op("admin", "Revoke an invitation or reset link that was not used", {
        parameters: [idParam],
        responses: { 200: Ok, 404: Err, 409: Err },
      }),
    },
    "/api/v1/teams": {
      get: op("viewer", "Teams: admins every team, others their own", {
        responses: {
          200: {
            description:
              "{ teams: [{ id, name, archivedAt, memberCount, myRole, budgetUsd, spentThisMonthUsd, runCount, activeRunCount, policyRules }] }",
          },
        },
      }),
      post: op("admin", "Create a team", {
        requestBody: json({
          type: "object",
          required: ["name"],
          properties: { name: { type: "string", description: "1 to 64 letters, digits, spaces, - _ . ; unique in any case" } },
        }),
        responses: { 201: { description: "{ id }" }, 400: Err, 403: Err, 409: Err },
      }),
    },
    "/api/v1/teams/{id}": {
      get: op("viewer", "A team with its members and recent runs (members and admins)", {
        parameters: [idParam],
        responses: { 200: { description: "The team" }, 404: Err },
      }),
      patch: op("viewer", "Rename a team (admins and the team's admins) or archive it (admins)", {
        description: "An archived team takes no new members; its runs and spend stay.",
        parameters: [idParam],
        requestBody: json({ type: "object", properties: { name: { type: "string" }, archived: { type: "boolean" } } }),
        responses: { 200: { description: "The team" }, 400: Err, 403: Err, 404: Err, 409: Err },
      }),
    },
    "/api/v1/teams/{id}/members": {
      get: op("viewer", "A team's members with their roles (members and admins)", {
        parameters: [idParam],
        responses: { 200: { description: "{ members }" }, 404: Err },
      }),
      post: op("viewer", "Add an existing person to a team (admins and the team's admins)", {
        parameters: [idParam],
        requestBody: json({ type: "object", required: ["email", "role"], properties: { email: { type: "string" }, role: RoleEnum } }),
        responses: { 201: Ok, 400: Err, 403: Err, 404: Err, 409: { ...Err, description: "Already a member, or the team is archived" } },
      }),
    },
    "/api/v1/teams/{id}/members/{userId}": {
      patch: op("viewer", "Change a member's role in the team (admins and the team's admins)", {
        parameters: [idParam, userIdParam],
        requestBody: json({ type: "object", required: ["role"], properties: { role: RoleEnum } }),
        responses: { 200: Ok, 400: Err, 403: Err, 404: Err },
      }),
      delete: op("viewer", "Remove a member from the team (admins and the team's admins)", {
        parameters: [idParam, userIdParam],
        responses: { 200: Ok, 403: Err, 404: Err },
      }),
    },
    "/api/v1/human-requests": {
      get: op("viewer", "Human requests of runs you can see, newest first", {
        parameters: [
          {
            name: "state",
            in: "query",
            description: "Comma-separated: PENDING, APPROVED, REJECTED, EXPIRED, ESCALATED, CANCELED",
            schema: { type: "string" },
          },
          { name: "runId", in: "query", schema: { type: "string" } },
          { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 200, default: 50 } },
          { name: "cursor", in: "query", description: "nextCursor of the page before", schema: { type: "string" } },
        ],
        responses: { 200: { description: "{ items, nextCursor }" }, 400: Err, 401: Err },
      }),
    },
    "/api/v1/human-requests/{id}": {
      get: op("viewer", "A human request", { parameters: [idParam], responses: { 200: { description: "The request" }, 404: Err } }),
    },
    "/api/v1/human-requests/{id}/decision": {
      post: op("operator", "Decide a human request (its own required role applies too)", {
        parameters: [idParam],
        requestBody: json({
          type: "object",
          required: ["decision"],
          properties: {
            decision: { enum: ["approve", "reject", "veto", "choose", "provide"] },
            optionId: { type: "string", description: "choose: the option picked" },
            value: { description: "provide: a value matching the request's JSON schema" },
            comment: { type: "string" },
            editedArguments: { type: "object", description: "approve: run the tool with these arguments instead" },
          },
        }),
        responses: {
          200: { description: "The decided request" },
          400: Err,
          403: Err,
          404: Err,
          409: { ...Err, description: "Already decided" },
        },
      }),
    },
  },
};
