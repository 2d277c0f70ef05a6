// CLI commands for skills over REST v1 (docs/skills.md#rest-and-cli): `skills`
// lists the library, `skills show NAME` prints one with its SKILL.md and
// versions, `skills save FILE.md` writes a new version (the name is read from
// the file's front matter), `skills disable|enable NAME` switches one.
import { CliError, ok } from "./cli-error";
import { readInput } from "./cli-input";
import type { CliCommand } from "./cli-commands";

type SkillValues = { json?: boolean; comment?: string };
interface Outcomes {
  runs: number;
  successRate: number | null;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
const rate = (o: Outcomes) =>
  o.successRate === null ? `— (${plural(o.runs, "run")})` : `${Math.round(o.successRate * 100)}% (${plural(o.runs, "run")})`;
const scopeText = (s: { agents: string[]; teams: string[] }) =>
  `${s.agents.length ? `agents ${s.agents.join(", ")}` : "every agent"} · ${s.teams.length ? `teams ${s.teams.join(", ")}` : "every team"}`;

function nameOf(args: string[], verb: string): string {
  if (!args[1]) throw new CliError(`skills ${verb} needs the skill's NAME (npm run rein -- skills lists them)`);
  return args[1];
}

/** The name in a SKILL.md's front matter; the server checks the rest. */
export function skillNameIn(text: string): string | null {
  const front = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  const line = front && /^name:[ \t]*(.+?)[ \t]*$/m.exec(front[1]);
  return line ? line[1].replace(/^(["'])(.*)\1$/, "$2") : null;
}

function readFile(file: string): string {
  try {
    return readInput(file);
  } catch (err) {
    throw new CliError(`Cannot read ${file}: ${(err as Error).message}`);
  }
}

export const SKILL_COMMANDS: CliCommand<SkillValues>[] = [
  {
    command: "skills",
    usage: "[show NAME | save FILE.md | disable NAME | enable NAME] [--comment REASON] [--json]",
    description:
      "List the skills you can see (with success rates of runs that loaded each against runs in its scope that did not), show one with its SKILL.md and versions, save a SKILL.md as a new version (operator; FILE - reads standard input), or switch one off or on (approver).",
    async run({ api, args, values }) {
      const [verb] = args;
      if (!verb) {
        const { skills } = await ok(api.GET("/api/v1/skills"));
        if (values.json) return console.log(JSON.stringify(skills));
        if (!skills.length) return console.log("No skills yet. Write a SKILL.md and save it with: npm run rein -- skills save FILE.md");
        for (const s of skills) {
          const left = s.omittedRuns ? `  left out of ${plural(s.omittedRuns, "prompt")}` : "";
          console.log(
            `${`${s.name} v${s.version}`.padEnd(30)} ${s.state.padEnd(10)} ${plural(s.useCount, "load").padEnd(9)} loaded ${rate(s.loaded)} vs not ${rate(s.notLoaded)}${left}`,
          );
        }
        return;
      }
      if (verb === "show") {
        const s = await ok(api.GET("/api/v1/skills/{name}", { params: { path: { name: nameOf(args, "show") } } }));
        if (values.json) return console.log(JSON.stringify(s));
        const c = s.current;
        console.log(`${s.name} v${c.version}: ${c.state}${c.stateReason ? ` — ${c.stateReason}` : ""}`);
        console.log(c.description);
        console.log(
          `${scopeText(c.scope)}${c.tags.length ? ` · tags ${c.tags.join(", ")}` : ""} · ${plural(s.useCount, "load")} · loaded ${rate(s.loaded)} vs not ${rate(s.notLoaded)}`,
        );
        if (s.omittedRuns) console.log(`warning: ${plural(s.omittedRuns, "run")} left it out of the prompt for lack of budget`);
        console.log(`\nversions:`);
        for (const v of s.versions)
          console.log(
            `  v${v.version}  ${v.state.padEnd(10)} ${String(v.createdAt).slice(0, 10)}  ${v.authorRunId ? `proposed by run ${v.authorRunId}` : `written by ${v.authorName ?? "a person"}`}${v.stateReason ? ` — ${v.stateReason}` : ""}`,
          );
        console.log(`\nSKILL.md:\n${c.source}`);
        return;
      }
      if (verb === "save") {
        if (!args[1]) throw new CliError("skills save needs a SKILL.md file (- reads standard input)");
        const text = readFile(args[1]);
        const name = skillNameIn(text);
        if (!name)
          throw new CliError(`${args[1]} has no name: line in its front matter (a SKILL.md starts with ---, name: …, description: …, ---)`);
        const s = await ok(api.PUT("/api/v1/skills/{name}", { params: { path: { name } }, body: { text } }));
        if (values.json) return console.log(JSON.stringify(s));
        return console.log(`Skill ${s.name} saved as version ${s.current.version}`);
      }
      if (verb === "disable" || verb === "enable") {
        const s = await ok(
          api.POST(`/api/v1/skills/{name}/${verb}`, {
            params: { path: { name: nameOf(args, verb) } },
            body: values.comment ? { reason: values.comment } : {},
          }),
        );
        if (values.json) return console.log(JSON.stringify(s));
        return console.log(`${s.name} v${s.current.version}: ${s.current.state}`);
      }
      throw new CliError(`skills takes show, save, disable or enable, not "${verb}"`);
    },
  },
];
