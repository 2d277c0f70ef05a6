// policy.*: the admins' policy editor
// (docs/human-requests-and-policy.md#policy). Saving goes through savePolicy,
// which audits it; the caller's PolicyGate reloads on invalidate().
import { z } from "zod";
import {
  MAX_COMMENT_CHARS,
  MAX_POLICY_CHARS,
  activePolicy,
  getPolicyVersion,
  teamNameNotes,
  listPolicyVersions,
  parsePolicy,
  policyGrammar,
  previewPolicy,
  savePolicy,
  ruleSuggestions,
  acceptSuggestion,
  dismissSuggestion,
} from "@/server/policy";
import { DomainError } from "@/server/errors";
import { adminProcedure, router } from "../trpc";

const Source = z.string().max(MAX_POLICY_CHARS, `a policy has at most ${MAX_POLICY_CHARS} characters`);
const VersionInput = z.object({ version: z.number().int().min(1) });
const ValidateInput = z.object({ source: Source });
const PreviewInput = z.object({
  source: Source,
  sample: z.object({
    actorEmail: z.string().trim().max(320).optional(),
    team: z.string().trim().max(100).optional(),
    tool: z.string().trim().min(1, "tool is required").max(200),
    args: z.record(z.string(), z.unknown()).default({}),
    tier: z.string().trim().min(1, "tier is required").max(50),
  }),
});
const SuggestionInput = z.object({
  id: z
    .string()
    .trim()
    .regex(/^[0-9a-f]{16}$/, "not a suggestion's id"),
});
const DismissInput = SuggestionInput.extend({
  reason: z.string().trim().min(1, "Say why, for the audit log").max(MAX_COMMENT_CHARS),
});
const SaveInput = z.object({
  source: Source,
  comment: z.string().max(MAX_COMMENT_CHARS).default(""),
  /** The version the edit started from: a newer one saved meanwhile makes this a CONFLICT. */
  baseVersion: z.number().int().min(0).optional(),
});

export const policyRouter = router({
  active: adminProcedure.query(({ ctx }) => activePolicy(ctx.db)),
  /** The rule form's options (decisions, ask kinds and roles, matchers), from the schema. */
  grammar: adminProcedure.query(() => policyGrammar()),
  versions: adminProcedure.query(({ ctx }) => listPolicyVersions(ctx.db)),
  get: adminProcedure.input(VersionInput).query(async ({ ctx, input }) => {
    const found = await getPolicyVersion(ctx.db, input.version);
    if (!found) throw new DomainError("NOT_FOUND", `There is no policy version ${input.version}`);
    return found;
  }),
  // validate and preview are mutations only so a long draft travels in a POST body, not a URL.
  validate: adminProcedure.input(ValidateInput).mutation(async ({ ctx, input }) => {
    const r = parsePolicy(input.source);
    if (!r.ok) return { ok: false as const, errors: r.errors, warnings: [], ruleCount: 0 };
    // Rules keep the team they were saved for; say so where a team has been renamed since.
    const teams = await teamNameNotes(ctx.db, r.policy, (await activePolicy(ctx.db)).teams, input.source);
    return { ok: true as const, errors: [], warnings: [...r.warnings, ...teams], ruleCount: r.policy.ruleCount };
  }),
  preview: adminProcedure.input(PreviewInput).mutation(({ ctx, input }) => previewPolicy(ctx.db, input.source, input.sample)),
  save: adminProcedure.input(SaveInput).mutation(async ({ ctx, input }) => {
    const saved = await savePolicy(ctx.db, {
      source: input.source,
      comment: input.comment,
      baseVersion: input.baseVersion,
      actor: { id: ctx.actor.userId, name: ctx.actor.name || ctx.actor.email },
    });
    // The next tool call decides by the new version, not after the gate's periodic recheck.
    ctx.policy.invalidate();
    return saved;
  }),
  /** Rules proposed from commands people keep approving (docs/human-requests-and-policy.md#suggested-rules). */
  suggestions: adminProcedure.query(({ ctx }) => ruleSuggestions(ctx.db)),
  acceptSuggestion: adminProcedure.input(SuggestionInput).mutation(async ({ ctx, input }) => {
    const saved = await acceptSuggestion(ctx.db, { id: ctx.actor.userId, name: ctx.actor.name || ctx.actor.email }, input.id);
    ctx.policy.invalidate();
    return saved;
  }),
  dismissSuggestion: adminProcedure.input(DismissInput).mutation(async ({ ctx, input }) => {
    await dismissSuggestion(ctx.db, { id: ctx.actor.userId, name: ctx.actor.name || ctx.actor.email }, input.id, input.reason);
    return { ok: true as const };
  }),
});
