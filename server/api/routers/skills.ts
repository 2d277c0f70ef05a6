// skills.*: the Skills page (docs/skills.md). Everyone sees the skills
// made for everyone and for their teams; writing one needs an operator in each
// of its teams (an admin for one for everyone), switching one off or on an
// approver (the library checks the role in the skill's team).
import { z } from "zod";
import { getSkill, listSkills, parseSkillMd, formatProblem } from "@/server/improve";
import { approverProcedure, operatorProcedure, router, viewerProcedure } from "../trpc";

const SkillText = z.object({ text: z.string().max(100 * 1024, "A SKILL.md is at most 80 KiB") });
const SkillName = z.object({ name: z.string().trim().min(1, "Name the skill").max(64) });
const Toggle = SkillName.extend({ reason: z.string().trim().max(500).optional() });

const channelOf = (ctx: { actor: { via: string } }) => (ctx.actor.via === "session" ? "admin" : "api");

export const skillsRouter = router({
  list: viewerProcedure.query(({ ctx }) => listSkills(ctx.db, ctx.actor)),
  get: viewerProcedure.input(SkillName).query(({ ctx, input }) => getSkill(ctx.db, ctx.actor, input.name)),
  /** The editor's check as you type: every problem, nothing saved. A mutation only so a long draft travels in a POST body, not a URL. */
  validate: viewerProcedure.input(SkillText).mutation(({ input }) => {
    const parsed = parseSkillMd(input.text);
    return parsed.ok
      ? { ok: true as const, problems: [], name: parsed.skill.name, scope: parsed.skill.scope }
      : { ok: false as const, problems: parsed.problems.map((p) => ({ ...p, text: formatProblem(p) })) };
  }),
  save: operatorProcedure.input(SkillText).mutation(async ({ ctx, input }) => {
    const row = await ctx.improve.skills.save(ctx.actor, input.text, channelOf(ctx));
    return getSkill(ctx.db, ctx.actor, row.name);
  }),
  disable: approverProcedure.input(Toggle).mutation(async ({ ctx, input }) => {
    await ctx.improve.skills.setEnabled(ctx.actor, input.name, false, channelOf(ctx), input.reason);
    return getSkill(ctx.db, ctx.actor, input.name);
  }),
  enable: approverProcedure.input(Toggle).mutation(async ({ ctx, input }) => {
    await ctx.improve.skills.setEnabled(ctx.actor, input.name, true, channelOf(ctx), input.reason);
    return getSkill(ctx.db, ctx.actor, input.name);
  }),
});
