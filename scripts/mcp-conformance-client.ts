// Rein's MCP client as the conformance suite's "client under test"
// (@modelcontextprotocol/conformance client --command ...): the suite starts a
// server for a scenario, runs this with the server's URL as the last argument
// and MCP_CONFORMANCE_SCENARIO set, and checks what reached the server. It is
// the same McpConnection Rein's tools use; a question the server asks (an
// elicitation) is answered the way a person's empty form is: with the
// schema's defaults.
import { withDefaults, McpConnection } from "@/server/mcp-client";

/** What each scenario expects the client to do after initialize and tools/list. */
const CALLS: Record<string, { tool: string; args: Record<string, unknown> }> = {
  tools_call: { tool: "add_numbers", args: { a: 2, b: 3 } },
  "elicitation-sep1034-client-defaults": { tool: "test_client_elicitation_defaults", args: {} },
  "sse-retry": { tool: "test_reconnection", args: {} },
};

async function main() {
  const url = process.argv[process.argv.length - 1];
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "initialize";
  const connection = new McpConnection(
    { transport: "http", url, headers: {} },
    {
      onElicit: async (params) => ({
        action: "accept",
        content: withDefaults((params as { requestedSchema?: unknown }).requestedSchema, {}),
      }),
    },
  );
  await connection.connect();
  await connection.listTools();
  const call = CALLS[scenario];
  if (call) await connection.callTool(call.tool, call.args, { maxMs: 20_000 });
  await connection.close();
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
