// The hosted-agent demo (docs/hosted-agents.md#try-it), played by the scripted
// model through the model gateway: Rein's test agent, a program of its own
// speaking ACP, asks this model what to do and does it with its own tools
// (update_plan, write_file, run_command), through Rein's files, terminal and
// policy. The deploy waits for a person; the last turn claims nothing about it.
import type { Scenario } from "../../types";

export const DEMO_HOSTED_GOAL = "Write a greeting script, run it, and deploy it to staging";

const HELLO_SH = `#!/bin/sh
echo "Hello from a hosted agent"
`;

const DEPLOY_SH = `#!/bin/sh
# Deploys to the environment given as the first argument (demo: writes a log line).
set -eu
mkdir -p out
echo "deployed hello.sh to \${1:?usage: ./deploy.sh <environment>}" >> out/deploy.log
echo "Deployed hello.sh to $1"
`;

const plan = (done: number) =>
  ["Write hello.sh and deploy.sh", "Run hello.sh", "Deploy to staging"].map((content, i) => ({
    content,
    status: i < done ? "completed" : i === done ? "in_progress" : "pending",
  }));

export const DEMO_HOSTED: Scenario = {
  turns: [
    {
      text: "I'm Rein's scripted demo model, driving a hosted agent. I'll plan, write a greeting script and a deploy script, run the greeting, then deploy.",
      toolCalls: [
        { tool: "update_plan", args: { entries: plan(0) } },
        { tool: "write_file", args: { path: "/workspace/hello.sh", content: HELLO_SH } },
        { tool: "write_file", args: { path: "/workspace/deploy.sh", content: DEPLOY_SH } },
      ],
    },
    {
      text: "Running the greeting.",
      toolCalls: [
        { tool: "update_plan", args: { entries: plan(1) } },
        { tool: "run_command", args: { command: "chmod +x deploy.sh && sh hello.sh" } },
      ],
    },
    {
      text: "Deploying to staging; Rein's policy asks a person first.",
      toolCalls: [
        { tool: "update_plan", args: { entries: plan(2) } },
        { tool: "run_command", args: { command: "./deploy.sh staging" } },
      ],
    },
    {
      text: "That was the last step of my script. The timeline shows whether the deploy was approved and ran; an approved deploy wrote out/deploy.log.",
    },
  ],
};
