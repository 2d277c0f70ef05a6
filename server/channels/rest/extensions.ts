// REST v1 for the extension registry (docs/extensions.md): the list, one
// extension with its files and test results, proposing a package, switching
// one off or on, approving, and removing one. The same services and role
// checks as the tRPC router.
import { z } from "zod";
import { EXTENSION_MAX_PACKAGE_BYTES, EXTENSION_STATES, ListExtensionsInput, getExtension, listExtensions } from "@/server/improve";
import type { Role } from "@/server/identity";
import { defineRoute, type Route } from "./contract";
import { JsonValue } from "./schemas";

const ActionBody = z
  .object({ reason: z.string().trim().max(500, "reason is at most 500 characters").optional().describe("Why, for the audit log") })
  .strict();
const ProposeBody = z
  .object(
    {
      manifest: JsonValue.describe("{ name, version, description, capabilities, tools?, skills?, hooks?, replay? }"),
      files: JsonValue.describe("{ path: text }: the package's files, index.js and test/*.test.js among them"),
    },
    { error: "the body is an extension package: { manifest, files }" },
  )
  .strict();
/** The package's own limit, with room for JSON's escaping. */
const MAX_PROPOSAL_BYTES = 2 * EXTENSION_MAX_PACKAGE_BYTES;

const ListQuery = ListExtensionsInput.extend({
  state: ListExtensionsInput.shape.state.describe("Only this state; removed ones are listed only with state=removed"),
});

const Tests = z.object({ ok: z.boolean(), passed: z.number().int(), failed: z.number().int() });

const Summary = z
  .object({
    id: z.string(),
    name: z.string(),
    version: z.string(),
    state: z.string().describe(`One of ${EXTENSION_STATES.join(", ")}`),
    stateReason: z.string().nullable(),
    description: z.string(),
    capabilities: z.array(z.string()),
    tools: z.array(z.string()).describe("The tools it adds"),
    skills: z.array(z.string()).describe("The skills it brings"),
    hooks: z.array(z.string()).describe("The run event types it hooks"),
    tests: Tests.nullable().describe("The gate's totals; null before it ran"),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: "ExtensionSummary" });

const Detail = Summary.extend({
  manifest: z.record(z.string(), JsonValue).describe("The package's manifest"),
  files: z.record(z.string(), z.string()).describe("The package's files by path"),
  testResults: Tests.extend({
    summary: z.string(),
    untested: z.array(z.string()),
    build: z.object({ ok: z.boolean(), problems: z.array(z.string()).optional(), durationMs: z.number().optional() }),
    results: z.array(z.object({ file: z.string(), name: z.string(), ok: z.boolean(), message: z.string(), durationMs: z.number() })),
  })
    .nullable()
    .describe("The gate's results, test by test; null before it ran"),
  authorRunId: z.string().nullable().describe("The run that proposed it, to those who may see that run"),
  createdBy: z.object({ id: z.string(), name: z.string() }).nullable(),
}).meta({ id: "Extension" });

const ERRORS = {
  409: "The extension is not in a state this applies to",
};

type Action = "disable" | "enable" | "approve" | "reject";

function action(name: Action, minRole: Role, summary: string, description?: string): Route {
  return defineRoute({
    method: "POST",
    path: `/api/v1/extensions/{id}/${name}`,
    minRole,
    summary,
    description,
    body: ActionBody,
    response: Detail,
    responseDescription: "The extension",
    errors: ERRORS,
    async handle({ params, body, actor, db, improve, channel }) {
      const registry = improve.extensionRegistry;
      if (name === "approve") await registry.approve(actor, params.id, channel);
      else await registry[name](actor, params.id, channel, body.reason);
      return getExtension(db, actor, params.id);
    },
  });
}

export const EXTENSION_ROUTES: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/extensions",
    minRole: "viewer",
    summary: "Extensions (tier 2), newest first, one row per version; removed ones only with state=removed",
    query: ListQuery,
    response: z.object({ extensions: z.array(Summary) }),
    handle: ({ query, actor, db }) => listExtensions(db, actor, query),
  }),
  defineRoute({
    method: "POST",
    path: "/api/v1/extensions",
    minRole: "admin",
    status: 201,
    summary:
      "Propose an extension package: it is checked, built and all its tests run in the sandbox; it is installed only if they all pass",
    description:
      "The body is the package: { manifest: { name, version, description, capabilities, tools?, skills?, hooks?, replay? }, files: { path: text } }. " +
      "A package whose gate fails ends failed and is never installed. One that passes waits for another admin's approval while the setting extensionsRequireApproval is on (the default), else it is installed at once; it supersedes an older installed version.",
    body: ProposeBody,
    bodyLimit: MAX_PROPOSAL_BYTES,
    response: Detail,
    responseDescription: "The extension, as GET /api/v1/extensions/{id} returns it",
    errors: { 409: "This version was proposed already, a version as new is installed, or a tool name is taken" },
    async handle({ body, actor, db, improve, channel }) {
      const registry = improve.extensionRegistry;
      const out = await registry.propose(body, {
        createdById: actor.userId,
        by: { id: actor.userId, name: actor.name },
        channel,
      });
      return getExtension(db, actor, out.id);
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/extensions/{id}",
    minRole: "viewer",
    summary: "One extension: its manifest, files and the gate's results, test by test",
    response: Detail,
    handle: ({ params, actor, db }) => getExtension(db, actor, params.id),
  }),
  action(
    "disable",
    "approver",
    "Switch an installed extension off: its tools and hooks leave every run at once",
    "Extensions serve every team: needs the approver role of the person (not of one team).",
  ),
  action("enable", "approver", "Switch a disabled extension back on (when no other version of it is installed)"),
  action("approve", "admin", "Approve an extension whose gate passed: it is installed; never by the person who proposed it"),
  action("reject", "admin", "Reject an extension waiting for approval: it is never installed"),
  defineRoute({
    method: "DELETE",
    path: "/api/v1/extensions/{id}",
    minRole: "admin",
    summary: "Remove an extension: its tools leave every run at once",
    response: Detail,
    responseDescription: "The extension",
    errors: ERRORS,
    async handle({ params, actor, db, improve, channel }) {
      await improve.extensionRegistry.remove(actor, params.id, channel);
      return getExtension(db, actor, params.id);
    },
  }),
];
