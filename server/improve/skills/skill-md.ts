// A skill's SKILL.md (docs/skills.md): YAML front matter between
// `---` lines, then the markdown body the agent reads when it loads the
// skill. Parsed with the YAML library (never evaluated) and checked with
// every problem reported at once, with line numbers where there are any.
import { DomainError } from "@/server/errors";
import { LineCounter, parseDocument } from "yaml";

export const SKILL_NAME = /^[a-z0-9-]{3,64}$/;
/** Names a skill cannot take: /skills/new is the editor for a new skill. */
const RESERVED_NAMES = new Set(["new"]);
export const MAX_BODY_BYTES = 64 * 1024;
export const MAX_SKILL_BYTES = 80 * 1024;
const MAX_LIST = 50;
const MAX_TRIGGERS = 20;
const KEYS = ["name", "description", "scope", "tags", "triggers"] as const;

export interface SkillProblem {
  /** 1-based line in the SKILL.md text, when the problem has one. */
  line?: number;
  field?: string;
  message: string;
}

export interface ParsedSkill {
  name: string;
  description: string;
  scope: { agents: string[]; teams: string[] };
  tags: string[];
  triggers: { should: string[]; shouldNot: string[] };
  body: string;
}

export type SkillParse = { ok: true; skill: ParsedSkill } | { ok: false; problems: SkillProblem[] };

export class SkillMdError extends DomainError {
  constructor(readonly problems: SkillProblem[]) {
    super("INVALID_INPUT", `The SKILL.md is not valid: ${problems.map(formatProblem).join("; ")}`);
    this.name = "SkillMdError";
  }
}

export const formatProblem = (p: SkillProblem) => (p.line ? `line ${p.line}: ${p.message}` : p.message);

/** The front matter's lines and the body, or where the split failed. */
function split(text: string): { yaml: string; yamlFirstLine: number; body: string; bodyFirstLine: number } | SkillProblem {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (lines[0]?.trim() !== "---")
    return {
      line: 1,
      message: "a SKILL.md starts with a line of three dashes (---), then the front matter (name:, description:), then another --- line",
    };
  const end = lines.findIndex((l, i) => i > 0 && l.trim() === "---");
  if (end < 0)
    return { line: 1, message: "the front matter that starts on line 1 is never closed: add a line of three dashes (---) after it" };
  return { yaml: lines.slice(1, end).join("\n"), yamlFirstLine: 2, body: lines.slice(end + 1).join("\n"), bodyFirstLine: end + 2 };
}

const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");

export function parseSkillMd(text: string): SkillParse {
  const problems: SkillProblem[] = [];
  if (typeof text !== "string" || !text.trim()) return { ok: false, problems: [{ message: "the SKILL.md is empty" }] };
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > MAX_SKILL_BYTES)
    return {
      ok: false,
      problems: [{ message: `the SKILL.md is ${Math.ceil(bytes / 1024)} KiB; at most ${MAX_SKILL_BYTES / 1024} KiB are allowed` }],
    };
  const parts = split(text);
  if ("message" in parts) return { ok: false, problems: [parts] };

  const counter = new LineCounter();
  const doc = parseDocument(parts.yaml, { lineCounter: counter, uniqueKeys: true, prettyErrors: false });
  const lineAt = (offset: number | undefined) =>
    offset === undefined ? undefined : counter.linePos(offset).line + parts.yamlFirstLine - 1;
  for (const e of doc.errors)
    problems.push({ line: lineAt(e.pos[0]), message: `the front matter is not valid YAML: ${e.message.split("\n")[0]}` });
  if (problems.length) return { ok: false, problems };

  let fm: unknown;
  try {
    fm = doc.toJS({ maxAliasCount: 10 });
  } catch {
    return { ok: false, problems: [{ line: parts.yamlFirstLine, message: "the front matter uses too many aliases (*name)" }] };
  }
  if (fm === null || fm === undefined) fm = {};
  if (typeof fm !== "object" || Array.isArray(fm))
    return {
      ok: false,
      problems: [{ line: parts.yamlFirstLine, message: "the front matter must be a mapping (name: …, description: …)" }],
    };
  const front = fm as Record<string, unknown>;
  /** The line of a key in the front matter. */
  const lineOf = (...path: string[]) => {
    const node = doc.getIn(path, true) as { range?: [number, number, number] } | undefined;
    if (node?.range) return lineAt(node.range[0]);
    const pair = (doc.contents as { items?: Array<{ key?: { value?: unknown; range?: [number] } }> } | null)?.items?.find(
      (p) => p.key?.value === path[0],
    );
    return lineAt(pair?.key?.range?.[0]);
  };
  const add = (field: string, message: string, path: string[] = [field]) => problems.push({ line: lineOf(...path), field, message });

  for (const key of Object.keys(front))
    if (!(KEYS as readonly string[]).includes(key)) add(key, `unknown front-matter key "${key}"; a skill has ${KEYS.join(", ")}`);

  const name = front.name;
  if (name === undefined)
    problems.push({ field: "name", message: "name is required (lower-case letters, digits and hyphens, 3–64 characters)" });
  else if (typeof name !== "string" || !SKILL_NAME.test(name))
    add("name", `name "${String(name)}" is not valid: use lower-case letters, digits and hyphens, 3–64 characters`);
  else if (RESERVED_NAMES.has(name)) add("name", `name "${name}" is reserved (it is a page of the Skills section); choose another`);

  const description = front.description;
  if (description === undefined)
    problems.push({
      field: "description",
      message: "description is required: say what the skill does and when to use it (20–1024 characters)",
    });
  else if (typeof description !== "string") add("description", "description must be text");
  else if (description.trim().length < 20)
    add("description", `description is ${description.trim().length} characters; write at least 20: what the skill does and when to use it`);
  else if (description.length > 1024) add("description", `description is ${description.length} characters; at most 1024 are allowed`);

  const scope = { agents: [] as string[], teams: [] as string[] };
  if (front.scope !== undefined) {
    if (typeof front.scope !== "object" || front.scope === null || Array.isArray(front.scope))
      add("scope", "scope must be a mapping: { agents: [..], teams: [..] }");
    else {
      for (const [k, v] of Object.entries(front.scope)) {
        if (k !== "agents" && k !== "teams") add("scope", `unknown scope key "${k}"; scope has agents and teams`, ["scope", k]);
        else if (!isStringList(v) || v.some((x) => !x.trim())) add("scope", `scope.${k} must be a list of names`, ["scope", k]);
        else if (v.length > MAX_LIST) add("scope", `scope.${k} lists ${v.length}; at most ${MAX_LIST}`, ["scope", k]);
        else scope[k] = [...new Set(v.map((x) => x.trim()))];
      }
    }
  }

  let tags: string[] = [];
  if (front.tags !== undefined) {
    if (!isStringList(front.tags) || front.tags.some((t) => !t.trim() || t.length > 40))
      add("tags", "tags must be a list of short words (at most 40 characters each)");
    else if (front.tags.length > MAX_LIST) add("tags", `tags lists ${front.tags.length}; at most ${MAX_LIST}`);
    else tags = [...new Set(front.tags.map((t) => t.trim()))];
  }

  const triggers = { should: [] as string[], shouldNot: [] as string[] };
  if (front.triggers !== undefined) {
    if (typeof front.triggers !== "object" || front.triggers === null || Array.isArray(front.triggers))
      add("triggers", "triggers must be a mapping: { should: [goal, ..], shouldNot: [goal, ..] }");
    else {
      for (const [k, v] of Object.entries(front.triggers)) {
        if (k !== "should" && k !== "shouldNot")
          add("triggers", `unknown triggers key "${k}"; triggers has should and shouldNot`, ["triggers", k]);
        else if (!isStringList(v) || v.some((x) => !x.trim() || x.length > 2000))
          add("triggers", `triggers.${k} must be a list of goals (text, at most 2000 characters each)`, ["triggers", k]);
        else if (v.length > MAX_TRIGGERS)
          add("triggers", `triggers.${k} lists ${v.length} goals; at most ${MAX_TRIGGERS}`, ["triggers", k]);
        else triggers[k] = v.map((x) => x.trim());
      }
    }
  }

  const body = parts.body.trim();
  if (!body)
    problems.push({
      line: parts.bodyFirstLine,
      field: "body",
      message: "the body is empty: write the skill's instructions in markdown after the closing --- line",
    });
  else if (Buffer.byteLength(body, "utf8") > MAX_BODY_BYTES)
    problems.push({
      line: parts.bodyFirstLine,
      field: "body",
      message: `the body is ${Math.ceil(Buffer.byteLength(body, "utf8") / 1024)} KiB; at most ${MAX_BODY_BYTES / 1024} KiB are allowed`,
    });

  if (problems.length) return { ok: false, problems: problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0)) };
  return { ok: true, skill: { name: name as string, description: (description as string).trim(), scope, tags, triggers, body } };
}

/** The parsed skill, or a SkillMdError naming every problem. */
export function readSkillMd(text: string): ParsedSkill {
  const parsed = parseSkillMd(text);
  if (!parsed.ok) throw new SkillMdError(parsed.problems);
  return parsed.skill;
}
