// demo-deploy: writes a deploy script and deploys where the goal says
// (production, staging, development or qa, and a version like 1.4.0 if it
// names one). Policy asks a person before the deploy; a refusal ends the run.
// The goal only chooses among fixed names: none of its text reaches the shell.
import type { Scenario } from "../../types";
import { DEPLOY_ENVIRONMENTS, parseDeploy } from "./goal";

export const DEMO_DEPLOY_GOAL = "Deploy version 1.4.0 to production";
const DEFAULT_ENVIRONMENT = "production";
const DEFAULT_VERSION = "1.4.0";

const DEPLOY_SH = `#!/bin/sh
# Deploys the site to the environment given as the first argument (demo: writes a log line).
set -eu
target="\${1:?usage: ./deploy.sh <environment>}"
mkdir -p out
echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) deployed version $(cat VERSION) to $target" >> out/deploy.log
echo "Deployed version $(cat VERSION) to $target"
`;

/** What the agent says it took from the goal, when it did not take it as asked. */
function readingOf(goal: string): { environment: string; version: string; note: string } {
  const target = parseDeploy(goal);
  const environment = target.environment ?? DEFAULT_ENVIRONMENT;
  const version = target.version ?? DEFAULT_VERSION;
  const notes: string[] = [];
  if (target.named.length > 1)
    notes.push(
      `Your goal names several environments (${target.named.join(", ")}); I deploy to one at a time, so I'm using the default, ${DEFAULT_ENVIRONMENT}.`,
    );
  else if (!target.environment && goal.trim())
    notes.push(
      `Your goal names none of the environments I know (${DEPLOY_ENVIRONMENTS.join(", ")}), so I'm deploying to the default, ${DEFAULT_ENVIRONMENT}.`,
    );
  if (!target.version && goal.trim()) notes.push(`It names no version like 1.4.0, so I'm deploying ${DEFAULT_VERSION}.`);
  return { environment, version, note: notes.length ? ` ${notes.join(" ")}` : "" };
}

export function demoDeploy(goal: string): Scenario {
  const { environment, version, note } = readingOf(goal);
  return {
    // A refused or rejected deploy ends the run instead of claiming success.
    stopOnError: true,
    turns: [
      {
        text: `I'll add a deploy script and a version file, then check them before deploying.${note}`,
        toolCalls: [
          { tool: "write_file", args: { path: "VERSION", content: `${version}\n` } },
          { tool: "write_file", args: { path: "deploy.sh", content: DEPLOY_SH } },
        ],
      },
      {
        text: "Checking the script's syntax.",
        toolCalls: [{ tool: "shell", args: { command: "chmod +x deploy.sh && sh -n deploy.sh && echo syntax ok" } }],
      },
      {
        text: `Everything is ready. Deploying to ${environment}; policy asks a person to approve this.`,
        toolCalls: [{ tool: "shell", args: { command: `./deploy.sh ${environment}` } }],
      },
      { text: `Deployed version ${version} to ${environment}; \`out/deploy.log\` records it.` },
    ],
  };
}

export const DEMO_DEPLOY: Scenario = demoDeploy(DEMO_DEPLOY_GOAL);
