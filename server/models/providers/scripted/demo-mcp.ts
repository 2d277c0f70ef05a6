// The MCP demo (docs/mcp.md), played by the scripted model. demo-mcp uses
// the tools of the bundled "everything" server (Settings › MCP servers › Add
// the demo server, then turn its tools on): it echoes a message, adds two
// numbers and runs a long operation whose progress shows live. Each call
// depends on the one before: a tool that is off or refused stops the demo,
// and the run says why instead of claiming a result.
import type { Scenario } from "../../types";

export const DEMO_MCP_GOAL = "Try the demo MCP server's tools: echo a message, add two numbers, and run a long operation";

export const DEMO_MCP: Scenario = {
  stopOnError: true,
  turns: [
    {
      text: "Asking the demo MCP server to echo a message.",
      toolCalls: [{ tool: "everything__echo", args: { message: "Hello from Rein" } }],
    },
    {
      text: "The server answered. Now asking it to add 19 and 23.",
      toolCalls: [{ tool: "everything__get-sum", args: { a: 19, b: 23 } }],
    },
    {
      text: "Starting a long operation on the server; its progress shows on the call as it arrives.",
      toolCalls: [{ tool: "everything__trigger-long-running-operation", args: { duration: 3, steps: 3 } }],
    },
    { text: "Done: the demo MCP server's answers to all three calls are in the timeline above." },
  ],
};
