// REST v1 for the Skills page (docs/skills.md): the library, one
// skill with its versions, writing a SKILL.md, and switching one off or on.
// The same services and role checks as the tRPC router.
import { z } from "zod";
import { IMPROVEMENT_STATES, getSkill, listSkills, readSkillMd } from "@/server/improve";
import { DomainError } from "@/server/errors";
import { defineRoute, type Route } from "./contract";
import { Instant, JsonValue } from "./schemas";

const SaveBody = z
  .object({
    text: z
      .string({ error: "text is the SKILL.md, as a string" })
      .max(100 * 1024, "a SKILL.md is at most 80 KiB")
      .describe("The whole SKILL.md: front matter (name, description, scope, tags, triggers) and body"),
  })
  .strict();
const ToggleBody = z.object({ reason: z.string().trim().max(500, "reason is at most 500 characters").optional() }).strict();
const SkillParams = z.object({ name: z.string().describe("The skill's name") });

const State = z.string().describe(`One of ${IMPROVEMENT_STATES.join(", ")}`);
const Scope = z
  .object({ agents: z.array(z.string()), teams: z.array(z.string()).describe("Team ids") })
  .describe("Who loads it: these agents in these teams; both empty: everyone");
const Outcomes = z.object({
  runs: z.number().int(),
  succeeded: z.number().int(),
  successRate: z.number().nullable().describe("succeeded / runs; null with no ended runs"),
});
const Stats = {
  useCount: z.number().int().describe("How many times runs loaded it"),
  loaded: Outcomes.describe("Ended runs that loaded it"),
  notLoaded: Outcomes.describe("Ended runs in its scope that did not"),
  omittedRuns: z.number().int().describe("Runs whose prompt left it out for lack of budget"),
};
const Review = JsonValue.describe("The reviewer's verdict on a skill the improver wrote; null for one a person wrote");

const SkillItem = z.object({
  name: z.string(),
  id: z.string().describe("The current version's id"),
  version: z.number().int().describe("The current version: the active one, else the latest"),
  state: State,
  stateReason: z.string().nullable(),
  description: z.string(),
  scope: Scope,
  tags: z.array(z.string()),
  versions: z.number().int().describe("How many versions it has"),
  updatedAt: Instant,
  authorRunId: z.string().nullable().describe("The improver run that proposed it"),
  authorName: z.string().nullable().describe("The person who wrote it"),
  ...Stats,
});

const Skill = z
  .object({
    name: z.string(),
    current: z
      .object({
        id: z.string(),
        version: z.number().int(),
        state: State,
        stateReason: z.string().nullable(),
        description: z.string(),
        source: z.string().describe("The SKILL.md"),
        scope: Scope,
        tags: z.array(z.string()),
        review: Review,
      })
      .describe("The active version, else the latest"),
    versions: z
      .array(
        z.object({
          id: z.string(),
          version: z.number().int(),
          state: State,
          stateReason: z.string().nullable(),
          createdAt: Instant,
          createdById: z.string().nullable(),
          authorRunId: z.string().nullable(),
          authorName: z.string().nullable(),
          review: Review,
        }),
      )
      .describe("Newest first"),
    loadedBy: z
      .array(
        z.object({
          runId: z.string(),
          version: z.number().int().nullable(),
          toolCallId: z.string().nullable(),
          at: Instant,
          run: z
            .object({
              id: z.string(),
              agentName: z.string(),
              goal: z.string(),
              status: z.string(),
              teamId: z.string().nullable(),
              createdAt: Instant,
            })
            .nullable(),
        }),
      )
      .describe("The latest runs you can see that loaded it"),
    ...Stats,
  })
  .meta({ id: "Skill" });

function toggle(enabled: boolean): Route {
  return defineRoute({
    method: "POST",
    path: `/api/v1/skills/{name}/${enabled ? "enable" : "disable"}`,
    minRole: "approver",
    summary: enabled
      ? "Switch a skill's latest disabled version back on"
      : "Switch a skill's active version off: runs stop seeing it at their next turn",
    ...(enabled ? {} : { description: "Needs the approver role in the skill's team (or overall, for one made for everyone)." }),
    params: SkillParams,
    body: ToggleBody,
    response: Skill,
    responseDescription: "The skill",
    errors: { 409: "The version's state does not allow it, another version is active, or the skill changed meanwhile" },
    async handle({ params, body, actor, channel, db, improve }) {
      await improve.skills.setEnabled(actor, params.name, enabled, channel, body.reason);
      return getSkill(db, actor, params.name);
    },
  });
}

export const SKILL_ROUTES: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/skills",
    minRole: "viewer",
    summary: "Skills you can see, one entry per name with its current version and how runs that loaded it ended",
    description:
      "Skills made for everyone and for your teams (admins: all). loaded and notLoaded compare ended runs that loaded the skill with ended runs in its scope that did not; omittedRuns counts runs whose prompt left it out for lack of budget.",
    response: z.object({ skills: z.array(SkillItem) }),
    handle: async ({ actor, db }) => ({ skills: await listSkills(db, actor) }),
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/skills/{name}",
    minRole: "viewer",
    summary: "One skill: its current SKILL.md, every version with the reviewer's verdict, and the runs that loaded it",
    params: SkillParams,
    response: Skill,
    handle: ({ params, actor, db }) => getSkill(db, actor, params.name),
  }),
  defineRoute({
    method: "PUT",
    path: "/api/v1/skills/{name}",
    minRole: "operator",
    summary: "Write a skill: the SKILL.md is checked and stored as its next version, active at once",
    description:
      "The name in the SKILL.md must be the one in the path. A skill for everyone needs the admin role; one scoped to teams needs the operator role in each of them.",
    params: SkillParams,
    body: SaveBody,
    response: Skill,
    responseDescription: "The skill, as GET returns it",
    errors: { 409: "The name is taken by a skill you cannot see" },
    async handle({ params, body, actor, channel, db, improve }) {
      // The path names the skill: a SKILL.md naming another is refused before anything is stored.
      const named = readSkillMd(body.text).name;
      if (named !== params.name)
        throw new DomainError("INVALID_INPUT", `The SKILL.md is named "${named}" but the path names "${params.name}"; make them the same`);
      const row = await improve.skills.save(actor, body.text, channel);
      return getSkill(db, actor, row.name);
    },
  }),
  toggle(false),
  toggle(true),
];
