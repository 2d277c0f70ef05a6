// The goal the New run dialog fills in when a demo agent is chosen: each fits
// its demo's script (demo-browser orders what a goal names from the demo
// shop, demo-deploy deploys where it says; the others play a fixed script).

export const DEMO_GOALS: Readonly<Record<string, string>> = {
  "demo-coder": "Write a small FizzBuzz program and run its tests",
  "demo-team": "Plan and implement a slugify helper with tests",
  "demo-specialist": "Implement the slugify helper described in PLAN.md, with tests",
  "demo-deploy": "Deploy version 1.4.0 to production",
  "demo-release": "Prepare and publish the release notes for version 1.4",
  "demo-browser": "Order two Rein stickers from the demo shop",
  "demo-csv": "Add up the amount column of the sales export and write the total to total.txt",
  "demo-mcp": "Try the demo MCP server's tools: echo a message, add two numbers, and run a long operation",
  "demo-hosted": "Write a greeting script, run it, and deploy it to staging",
  "demo-long": "Build a small unit-conversion library, one module at a time, each with a passing test and its own commit",
};
