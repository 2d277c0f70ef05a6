// REST v1 for the Skills page (docs/skills.md): the library, one
// skill with its versions, writing a SKILL.md, and switching one off or on.
// The same services and role checks as the tRPC router.
import { z } from "zod";
import { SkillLibrary, getSkill, listSkills, readSkillMd } from "@/server/improve";
import { DomainError } from "@/server/errors";
import { readJson } from "./http";
import type { Route, RouteContext } from "./v1";

const path = (rest = "") => new RegExp(`^/api/v1/skills/([^/]+)${rest}$`);

const SaveBody = z
  .object({ text: z.string({ error: "text is the SKILL.md, as a string" }).max(100 * 1024, "a SKILL.md is at most 80 KiB") })
  .strict();
const ToggleBody = z.object({ reason: z.string().trim().max(500, "reason is at most 500 characters").optional() }).strict();

/** The running server's library (its cache is what runs see); one over the database where self-improvement does not run. */
const libraryOf = (ctx: RouteContext) => ctx.improve?.skills ?? new SkillLibrary({ db: ctx.db });
const channelOf = (ctx: RouteContext) => (ctx.req.headers["x-rein-channel"] === "cli" ? "cli" : "api");

function toggle(enabled: boolean): Route {
  return {
    method: "POST",
    pattern: path(enabled ? "/enable" : "/disable"),
    minRole: "approver",
    async handle(ctx) {
      const body = ToggleBody.parse(await readJson(ctx.req));
      await libraryOf(ctx).setEnabled(ctx.actor, ctx.params[0], enabled, channelOf(ctx), body.reason);
      return getSkill(ctx.db, ctx.actor, ctx.params[0]);
    },
  };
}

export const SKILL_ROUTES: Route[] = [
  {
    method: "GET",
    pattern: /^\/api\/v1\/skills$/,
    minRole: "viewer",
    handle: async (ctx) => ({ skills: await listSkills(ctx.db, ctx.actor) }),
  },
  { method: "GET", pattern: path(), minRole: "viewer", handle: (ctx) => getSkill(ctx.db, ctx.actor, ctx.params[0]) },
  {
    method: "PUT",
    pattern: path(),
    minRole: "operator",
    async handle(ctx) {
      const { text } = SaveBody.parse(await readJson(ctx.req));
      // The path names the skill: a SKILL.md naming another is refused before anything is stored.
      const named = readSkillMd(text).name;
      if (named !== ctx.params[0])
        throw new DomainError(
          "INVALID_INPUT",
          `The SKILL.md is named "${named}" but the path names "${ctx.params[0]}"; make them the same`,
        );
      const row = await libraryOf(ctx).save(ctx.actor, text, channelOf(ctx));
      return getSkill(ctx.db, ctx.actor, row.name);
    },
  },
  toggle(false),
  toggle(true),
];
