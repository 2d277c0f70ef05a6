// agents.*: the Agents pages (docs/agents.md). Everyone sees the agents of
// their teams and everyone's; changing one needs the operator role in its
// team (an admin for everyone's agents), checked by the service.
import { z } from "zod";
import {
  AgentName,
  ChangeNote,
  agentDepsOf,
  copyAgent,
  createAgent,
  diffVersions,
  exportAgentYaml,
  getAgent,
  importAgentYaml,
  listAgents,
  listTools,
  listVersions,
  rollbackAgent,
  saveAgent,
  setArchived,
  tryDraft,
  validateAgentSpec,
  type AgentActor,
  type AgentSpecInput,
} from "@/server/agents";
import type { Actor } from "@/server/identity";
import { hiddenRuntimeToolNames } from "@/server/improve";
import { operatorProcedure, router, viewerProcedure } from "../trpc";

/** The spec as sent; validateAgentSpec checks it and reports every problem by field. */
const Spec = z.custom<AgentSpecInput>(
  (v) => typeof v === "object" && v !== null && !Array.isArray(v),
  "An agent spec is a set of named settings",
);
const Name = z.object({ name: z.string().min(1, "Name the agent") });
const Version = z.number({ error: "A version is a whole number" }).int("A version is a whole number").min(1, "Versions start at 1");

const ListInput = z.object({ includeArchived: z.boolean().optional() }).optional();
const GetInput = Name.extend({ version: Version.optional() });
const DiffInput = Name.extend({ from: Version, to: Version });
const CreateInput = z.object({ spec: Spec, changeNote: ChangeNote.optional() });
const SaveInput = Name.extend({ spec: Spec, changeNote: ChangeNote.optional(), baseVersion: Version.optional() });
const RollbackInput = Name.extend({ version: Version });
const CopyInput = z.object({
  from: z.string().min(1, "Name the agent to copy"),
  name: AgentName,
  teamId: z.string().min(1).nullable().optional(),
});
const DraftInput = z.object({
  spec: Spec,
  goal: z.string().trim().min(1, "Give the run a goal").max(20_000, "The goal is longer than 20,000 characters"),
  teamId: z.string().min(1).optional(),
});
const ImportInput = z.object({ yaml: z.string({ error: "Paste or upload the YAML" }), changeNote: ChangeNote.optional() });

/** The audit log's channel: the UI, or a program with a token. */
const who = (actor: Actor): AgentActor => ({ actor, channel: actor.via === "session" ? "admin" : actor.via === "token" ? "api" : "cli" });

export const agentsRouter = router({
  list: viewerProcedure.input(ListInput).query(({ ctx, input }) => listAgents(ctx.db, ctx.actor, input ?? {})),
  get: viewerProcedure.input(GetInput).query(({ ctx, input }) => getAgent(ctx.db, ctx.actor, input.name, input.version)),
  versions: viewerProcedure.input(Name).query(({ ctx, input }) => listVersions(ctx.db, ctx.actor, input.name)),
  diff: viewerProcedure.input(DiffInput).query(({ ctx, input }) => diffVersions(ctx.db, ctx.actor, input.name, input.from, input.to)),
  /**
   * The agent form's tools; another team's runtime tools are that team's
   * improvements, and MCP tools an admin gave other teams only are theirs: not listed here.
   */
  tools: viewerProcedure.query(async ({ ctx }) => {
    const hidden = await hiddenRuntimeToolNames(ctx.db, ctx.actor);
    const mcpHidden = ctx.mcp.hiddenToolNames(ctx.actor);
    return listTools(ctx.kernel).filter((t) => !hidden.has(t.name) && !mcpHidden.has(t.name));
  }),
  validate: viewerProcedure.input(z.object({ spec: Spec })).query(async ({ ctx, input }) => ({
    problems: (await validateAgentSpec(agentDepsOf(ctx.kernel), input.spec, ctx.actor)).problems,
  })),
  create: operatorProcedure
    .input(CreateInput)
    .mutation(({ ctx, input }) => createAgent(agentDepsOf(ctx.kernel), who(ctx.actor), input.spec, input.changeNote)),
  save: operatorProcedure.input(SaveInput).mutation(({ ctx, input }) => saveAgent(agentDepsOf(ctx.kernel), who(ctx.actor), input)),
  rollback: operatorProcedure
    .input(RollbackInput)
    .mutation(({ ctx, input }) => rollbackAgent(agentDepsOf(ctx.kernel), who(ctx.actor), input.name, input.version)),
  archive: operatorProcedure
    .input(Name)
    .mutation(({ ctx, input }) => setArchived(agentDepsOf(ctx.kernel), who(ctx.actor), input.name, true)),
  unarchive: operatorProcedure
    .input(Name)
    .mutation(({ ctx, input }) => setArchived(agentDepsOf(ctx.kernel), who(ctx.actor), input.name, false)),
  copy: operatorProcedure.input(CopyInput).mutation(({ ctx, input }) => copyAgent(agentDepsOf(ctx.kernel), who(ctx.actor), input)),
  tryDraft: operatorProcedure.input(DraftInput).mutation(({ ctx, input }) => tryDraft(agentDepsOf(ctx.kernel), who(ctx.actor), input)),
  exportYaml: viewerProcedure
    .input(GetInput)
    .query(({ ctx, input }) => exportAgentYaml(agentDepsOf(ctx.kernel), who(ctx.actor), input.name, input.version)),
  importYaml: operatorProcedure
    .input(ImportInput)
    .mutation(({ ctx, input }) => importAgentYaml(agentDepsOf(ctx.kernel), who(ctx.actor), input.yaml, input.changeNote)),
});
