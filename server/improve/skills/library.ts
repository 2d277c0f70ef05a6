// The skill library (docs/skills.md): versions of SKILL.md files as
// Improvement rows of kind "skill", the active ones cached in memory so the
// kernel's per-turn questions (which skills are in scope, what to list in the
// prompt) cost no query. Written by people here, by the improver through the
// review gate (gate.ts).
import { DomainError, issuesOf } from "@/server/errors";
import type { Db } from "@/server/db";
import { recordAudit } from "@/server/audit";
import { roleAcross, roleAtLeast, roleIn, type Actor } from "@/server/identity";
import { event, type NewRunEvent } from "@/server/kernel";
import { canImprovementGo, improvementSourcesOf, TIER_OF, type ImprovementState } from "../improvements/states";
import { visibleImprovements } from "../improvements/service";
import { readSkillMd, parseSkillMd, formatProblem, SkillMdError, type ParsedSkill, type SkillProblem } from "./skill-md";
import { DEFAULT_SKILLS_BUDGET, skillsSection } from "./prompt";

export class SkillError extends DomainError {
  constructor(
    code: "NOT_FOUND" | "FORBIDDEN" | "INVALID_INPUT" | "CONFLICT",
    message: string,
    readonly problems: SkillProblem[] = [],
  ) {
    // A problem without a field belongs to the SKILL.md text; its words carry the line.
    super(code, message, issuesOf(problems.map((p) => ({ field: p.field ?? "text", message: formatProblem(p) }))));
    this.name = "SkillError";
  }
}

/** An active skill as the cache holds it. */
export interface ActiveSkill {
  id: string;
  name: string;
  version: number;
  description: string;
  body: string;
  scopeAgents: string[];
  scopeTeams: string[];
  tags: string[];
  /** Set for a skill an installed extension registered ("csv-tools v1.0.0"): its uses are not counted as an improvement's. */
  extension?: string;
}

/** What the scope check needs of a run: the agent acting now and the run's team. */
export interface SkillScope {
  agentName: string;
  teamId: string | null;
}

export interface SkillLibraryDeps {
  db: Db;
  /** The run store: where `skills.omitted` is recorded. */
  events?: { appendEvents(runId: string, events: NewRunEvent[]): Promise<unknown> };
  budgetTokens?: number;
  log?: { error(msg: string, err?: unknown): void };
  /** Skills of installed extensions (docs/extensions.md), asked each time; a library skill of the same name in the run's scope wins. */
  extensionSkills?(): ActiveSkill[];
}

/** In scope: the agent is listed (or none are), and so is the run's team (or none are). */
export function skillInScope(skill: Pick<ActiveSkill, "scopeAgents" | "scopeTeams">, run: SkillScope): boolean {
  return (
    (skill.scopeAgents.length === 0 || skill.scopeAgents.includes(run.agentName)) &&
    (skill.scopeTeams.length === 0 || (run.teamId !== null && skill.scopeTeams.includes(run.teamId)))
  );
}

export const jsonList = (json: string | null): string[] => {
  try {
    const v = JSON.parse(json ?? "[]");
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
};

/** The body of a stored SKILL.md; a row that no longer parses loads as its whole text. */
function bodyOf(source: string): string {
  const parsed = parseSkillMd(source);
  return parsed.ok ? parsed.skill.body : source;
}

const ACTIVE_SELECT = {
  id: true,
  name: true,
  version: true,
  description: true,
  source: true,
  scopeAgents: true,
  scopeTeams: true,
  tags: true,
} as const;
const MAX_WARNED_RUNS = 10_000;

/** A new version of a skill, ready to store. */
export function versionData(skill: ParsedSkill, source: string) {
  return {
    tier: TIER_OF.skill,
    kind: "skill",
    name: skill.name,
    description: skill.description,
    source,
    scopeAgents: JSON.stringify(skill.scope.agents),
    scopeTeams: JSON.stringify(skill.scope.teams),
    tags: JSON.stringify(skill.tags),
    cases: JSON.stringify(skill.triggers),
  };
}

export class SkillLibrary {
  private active = new Map<string, ActiveSkill>();
  private readonly warned = new Set<string>();

  constructor(readonly deps: SkillLibraryDeps) {}

  get budgetTokens(): number {
    return this.deps.budgetTokens ?? DEFAULT_SKILLS_BUDGET;
  }

  /** Reloads the active skills; called on start and after every change made through the library. */
  async refresh(): Promise<number> {
    const rows = await this.deps.db.improvement.findMany({
      where: { kind: "skill", state: "active" },
      select: ACTIVE_SELECT,
      orderBy: { name: "asc" },
    });
    const next = new Map<string, ActiveSkill>();
    for (const r of rows) {
      next.set(r.name, {
        id: r.id,
        name: r.name,
        version: r.version,
        description: r.description,
        body: bodyOf(r.source),
        scopeAgents: jsonList(r.scopeAgents),
        scopeTeams: jsonList(r.scopeTeams),
        tags: jsonList(r.tags),
      });
    }
    this.active = next;
    return next.size;
  }

  /**
   * The skills this run may see, one per name: the library's skill in its
   * scope, else an installed extension's. A skill out of the run's scope
   * never hides one in it, so one team cannot squat a name to take a skill
   * away from another (docs/security.md#skill-and-tool-names).
   */
  private visible(run: SkillScope): Map<string, ActiveSkill> {
    const out = new Map<string, ActiveSkill>();
    for (const s of this.active.values()) if (skillInScope(s, run)) out.set(s.name, s);
    for (const s of this.deps.extensionSkills?.() ?? []) if (!out.has(s.name) && skillInScope(s, run)) out.set(s.name, s);
    return out;
  }

  /** Active skills in the run's scope, by name. */
  inScope(run: SkillScope): ActiveSkill[] {
    return [...this.visible(run).values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  activeSkill(name: string): ActiveSkill | undefined {
    return this.active.get(name);
  }

  /** The kernel's question at every turn: load_skill when a skill is in scope. */
  toolsFor(run: SkillScope): string[] {
    return this.visible(run).size ? ["load_skill"] : [];
  }

  /** The skills section of the system prompt; skills left out are recorded once per run. */
  async promptFor(run: { id: string } & SkillScope): Promise<string | null> {
    const section = skillsSection(this.inScope(run), this.budgetTokens);
    if (!section) return null;
    if (section.omitted.length && !this.warned.has(run.id)) {
      if (this.warned.size >= MAX_WARNED_RUNS) this.warned.clear();
      this.warned.add(run.id);
      try {
        // The key keeps it to one event per run, across restarts too.
        await this.deps.events?.appendEvents(run.id, [
          event("skills.omitted", { names: section.omitted, budgetTokens: this.budgetTokens }, { actor: "system", key: "skills-omitted" }),
        ]);
      } catch (err) {
        this.deps.log?.error(`recording the skills left out of run ${run.id}'s prompt failed`, err);
      }
    }
    return section.text;
  }

  /** The body of a skill in the run's scope, and the use recorded once per call. */
  async load(
    run: { id: string } & SkillScope,
    name: string,
    toolCallId: string | null,
  ): Promise<{ name: string; version: number; body: string }> {
    const skill = this.visible(run).get(name);
    if (!skill) {
      const names = this.inScope(run).map((s) => s.name);
      throw new SkillError(
        "NOT_FOUND",
        `There is no skill "${name}" for this run. Skills you can load: ${names.length ? names.join(", ") : "none"}.`,
      );
    }
    if (skill.extension) return { name: skill.name, version: skill.version, body: skill.body };
    const { db } = this.deps;
    const existing = toolCallId
      ? await db.improvementUse.findFirst({ where: { improvementId: skill.id, runId: run.id, toolCallId }, select: { id: true } })
      : null;
    if (!existing) {
      await db.improvementUse.create({ data: { improvementId: skill.id, runId: run.id, toolCallId, ok: true } });
      await db.improvement.update({ where: { id: skill.id }, data: { uses: { increment: 1 }, successes: { increment: 1 } } });
    }
    return { name: skill.name, version: skill.version, body: skill.body };
  }

  /** A person writes or edits a skill: checked, stored as a new version, active at once (the previous active version is superseded). */
  async save(actor: Actor, text: string, channel: string) {
    let skill: ParsedSkill;
    try {
      skill = readSkillMd(text);
    } catch (err) {
      if (err instanceof SkillMdError) throw new SkillError("INVALID_INPUT", err.message, err.problems);
      throw err;
    }
    const { db } = this.deps;
    const latest = await db.improvement.findFirst({
      where: { kind: "skill", name: skill.name },
      orderBy: { version: "desc" },
      select: { id: true, version: true, scopeTeams: true },
    });
    if (
      latest &&
      !(await db.improvement.findFirst({ where: { AND: [{ id: latest.id }, visibleImprovements(actor)] }, select: { id: true } }))
    ) {
      throw new SkillError("CONFLICT", `The skill name "${skill.name}" is taken; choose another`);
    }
    this.mayWrite(actor, skill.scope.teams, "save this skill");
    if (latest) this.mayWrite(actor, jsonList(latest.scopeTeams), `edit the skill ${skill.name}`);
    const row = await this.storeVersion(skill, text, {
      state: "active",
      createdById: actor.userId,
      stateReason: `written by ${actor.name}`,
    });
    await recordAudit(db, {
      kind: "skill.saved",
      actorId: actor.userId,
      actorName: actor.name,
      channel,
      subject: `${row.name} v${row.version}`,
      detail: { improvementId: row.id },
    });
    return row;
  }

  private mayWrite(actor: Actor, teams: string[], what: string) {
    if (!teams.length) {
      if (actor.role !== "admin")
        throw new SkillError("FORBIDDEN", `To ${what} for everyone you need the admin role; list your team under scope.teams`);
      return;
    }
    for (const t of teams) {
      const r = roleIn(actor, t);
      if (!r || !roleAtLeast(r, "operator"))
        throw new SkillError("FORBIDDEN", `To ${what} you need the operator role in team ${t}${r ? `; you are ${r}` : ""}`);
    }
  }

  /** Stores the next version; an active one supersedes the active version of the same name in the same transaction. */
  async storeVersion(
    skill: ParsedSkill,
    source: string,
    extra: { state: "active" | "proposed"; createdById?: string; authorRunId?: string; stateReason?: string },
  ) {
    const { db } = this.deps;
    const row = await db.$transaction(async (tx) => {
      const last = await tx.improvement.findFirst({
        where: { kind: "skill", name: skill.name },
        orderBy: { version: "desc" },
        select: { version: true },
      });
      if (extra.state === "active") {
        await tx.improvement.updateMany({
          where: { kind: "skill", name: skill.name, state: "active" },
          data: { state: "superseded", stateReason: `superseded by version ${(last?.version ?? 0) + 1}` },
        });
      }
      return tx.improvement.create({ data: { ...versionData(skill, source), version: (last?.version ?? 0) + 1, ...extra } });
    });
    if (extra.state === "active") await this.refresh();
    return row;
  }

  /** Moves a proposed version through the gate's verdict; an approved one supersedes the active version. */
  async decide(id: string, to: "active" | "rejected", review: unknown, reason: string) {
    const { db } = this.deps;
    const row = await db.$transaction(async (tx) => {
      const current = await tx.improvement.findUniqueOrThrow({ where: { id }, select: { name: true, state: true } });
      if (current.state !== "proposed") throw new SkillError("CONFLICT", `The skill version is ${current.state}, not proposed`);
      if (to === "active")
        await tx.improvement.updateMany({
          where: { kind: "skill", name: current.name, state: "active" },
          data: { state: "superseded", stateReason: "superseded by a reviewed version" },
        });
      return tx.improvement.update({
        where: { id },
        data: { state: to, stateReason: reason.slice(0, 500), review: JSON.stringify(review) },
      });
    });
    if (to === "active") await this.refresh();
    return row;
  }

  /** Turns the active version off, or the latest disabled one back on (approver or above in the skill's team). */
  async setEnabled(actor: Actor, name: string, enabled: boolean, channel: string, reason?: string) {
    const { db } = this.deps;
    const row = await db.improvement.findFirst({
      where: { AND: [{ kind: "skill", name, state: enabled ? "disabled" : "active" }, visibleImprovements(actor)] },
      orderBy: { version: "desc" },
    });
    if (!row) throw new SkillError("NOT_FOUND", `There is no ${enabled ? "disabled" : "active"} skill "${name}" you can see`);
    const teams = jsonList(row.scopeTeams);
    // Turning it on reaches every team it is for; turning it off is safe with the role in any of them.
    const each = enabled && teams.length > 1;
    const have = roleAcross(actor, teams, each ? "each" : "any");
    if (!have || !roleAtLeast(have, "approver")) {
      throw new SkillError(
        "FORBIDDEN",
        `To ${enabled ? "enable" : "disable"} a skill you need the approver role${each ? " in each of its teams" : have ? `; you are ${have}` : " in its team"}`,
      );
    }
    const to: ImprovementState = enabled ? "active" : "disabled";
    if (!canImprovementGo(row.state as ImprovementState, to))
      throw new SkillError("CONFLICT", `A ${row.state} skill cannot be ${enabled ? "enabled" : "disabled"}`);
    if (enabled && (await db.improvement.findFirst({ where: { kind: "skill", name, state: "active" }, select: { id: true } }))) {
      throw new SkillError("CONFLICT", `Another version of ${name} is active; disable it first`);
    }
    const res = await db.improvement.updateMany({
      where: { id: row.id, state: { in: improvementSourcesOf(to) } },
      data: { state: to, stateReason: reason?.slice(0, 500) || `${enabled ? "enabled" : "disabled"} by ${actor.name}` },
    });
    if (res.count !== 1) throw new SkillError("CONFLICT", "The skill changed meanwhile; reload and try again");
    await this.refresh();
    await recordAudit(db, {
      kind: enabled ? "skill.enabled" : "skill.disabled",
      actorId: actor.userId,
      actorName: actor.name,
      channel,
      subject: `${row.name} v${row.version}`,
      detail: { improvementId: row.id, ...(reason ? { reason } : {}) },
    });
  }
}
