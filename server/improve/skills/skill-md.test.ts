import { describe, expect, it } from "vitest";
import { formatProblem, parseSkillMd, readSkillMd, SkillMdError } from "./skill-md";

const GOOD = `---
name: csv-totals
description: Adds up a column of a CSV file with quoted fields; use it when a goal asks for a total of a CSV column.
scope:
  agents: [coder]
  teams: [team-a]
tags: [csv, data]
triggers:
  should: ["Sum the amount column of sales.csv"]
  shouldNot: ["Write a haiku about autumn"]
---
# CSV totals

Parse the file with a real CSV parser.
`;

const problemsOf = (text: string) => {
  const r = parseSkillMd(text);
  if (r.ok) throw new Error("expected problems");
  return r.problems.map(formatProblem);
};

describe("SKILL.md", () => {
  it("reads a valid skill: front matter, scope, tags, triggers and body", () => {
    const s = readSkillMd(GOOD);
    expect(s).toEqual({
      name: "csv-totals",
      description: expect.stringContaining("Adds up a column"),
      scope: { agents: ["coder"], teams: ["team-a"] },
      tags: ["csv", "data"],
      triggers: { should: ["Sum the amount column of sales.csv"], shouldNot: ["Write a haiku about autumn"] },
      body: "# CSV totals\n\nParse the file with a real CSV parser.",
    });
  });

  it("needs the front matter, opened and closed by --- lines", () => {
    expect(problemsOf("# no front matter\n")).toEqual([expect.stringMatching(/^line 1: a SKILL.md starts with a line of three dashes/)]);
    expect(problemsOf("---\nname: abc\n")).toEqual([
      expect.stringMatching(/^line 1: the front matter that starts on line 1 is never closed/),
    ]);
    expect(problemsOf("")).toEqual(["the SKILL.md is empty"]);
  });

  it("reports YAML syntax errors with their line", () => {
    expect(problemsOf("---\nname: abc\ndescription: [unclosed\n---\nbody\n")[0]).toMatch(/^line \d: the front matter is not valid YAML/);
    expect(problemsOf("---\nname: abc\nname: abd\n---\nbody\n")[0]).toMatch(/^line 3: the front matter is not valid YAML: .*unique/i);
  });

  it("reports every problem at once, with line numbers", () => {
    const text = `---
name: Bad_Name
description: too short
colour: red
scope:
  agents: coder
  groups: [x]
tags: [ok, 7]
triggers:
  should: "one goal"
  maybe: []
---
`;
    expect(problemsOf(text)).toEqual([
      'line 2: name "Bad_Name" is not valid: use lower-case letters, digits and hyphens, 3–64 characters',
      "line 3: description is 9 characters; write at least 20: what the skill does and when to use it",
      'line 4: unknown front-matter key "colour"; a skill has name, description, scope, tags, triggers',
      "line 6: scope.agents must be a list of names",
      'line 7: unknown scope key "groups"; scope has agents and teams',
      "line 8: tags must be a list of short words (at most 40 characters each)",
      "line 10: triggers.should must be a list of goals (text, at most 2000 characters each)",
      'line 11: unknown triggers key "maybe"; triggers has should and shouldNot',
      "line 13: the body is empty: write the skill's instructions in markdown after the closing --- line",
    ]);
  });

  it("requires name and description, and bounds them and the body", () => {
    expect(problemsOf("---\ntags: []\n---\nbody\n")).toEqual([
      "name is required (lower-case letters, digits and hyphens, 3–64 characters)",
      "description is required: say what the skill does and when to use it (20–1024 characters)",
    ]);
    expect(problemsOf(`---\nname: ab\ndescription: ${"x".repeat(1025)}\n---\nbody\n`)).toEqual([
      'line 2: name "ab" is not valid: use lower-case letters, digits and hyphens, 3–64 characters',
      "line 3: description is 1025 characters; at most 1024 are allowed",
    ]);
    expect(problemsOf(`---\nname: abc\ndescription: A skill that is described well enough.\n---\n${"y".repeat(65 * 1024)}\n`)).toEqual([
      "line 5: the body is 65 KiB; at most 64 KiB are allowed",
    ]);
    expect(problemsOf("---\nname: new\ndescription: A skill that is described well enough.\n---\nbody\n")).toEqual([
      'line 2: name "new" is reserved (it is a page of the Skills section); choose another',
    ]);
  });

  it("throws one error naming every problem", () => {
    expect(() => readSkillMd("---\n---\n")).toThrow(SkillMdError);
    expect(() => readSkillMd("---\n---\n")).toThrow(/name is required.*description is required.*the body is empty/);
  });
});
