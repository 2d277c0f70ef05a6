// What an admin's browser does in the tests of MCP OAuth (docs/mcp.md#oauth):
// Rein's services set up with a public URL, and the authorization address
// followed to the authorization server's answer, read as Rein's callback.
import { McpServers } from "@/server/mcp-client";
import { SILENT_LOG, type TestKernel } from "./kernel";

export const PUBLIC_URL = "http://localhost:3999";

/** Rein's MCP servers on the test kernel, reachable back at PUBLIC_URL; started. */
export async function startMcpWithOAuth(tk: TestKernel): Promise<McpServers> {
  const mcp = new McpServers({
    db: tk.t.db,
    registry: tk.kernel.deps.registry,
    dataDir: tk.t.dir,
    keyring: tk.keyring,
    secrets: tk.kernel.secrets?.redactor,
    log: SILENT_LOG,
    connectTimeoutMs: 5_000,
    publicUrl: PUBLIC_URL,
  });
  tk.kernel.deps.mcp = mcp;
  await mcp.start();
  return mcp;
}

/** Follows the authorization address (consent given at once) and reads the callback the browser is sent to. */
export async function browse(authorizationUrl: string): Promise<{ callback: URL; state: string; code: string; iss: string }> {
  const answer = await fetch(authorizationUrl, { redirect: "manual" });
  const location = answer.headers.get("location");
  if (answer.status !== 302 || !location) throw new Error(`the authorization server answered ${answer.status}, not a redirect`);
  const callback = new URL(location);
  const get = (name: string) => callback.searchParams.get(name) ?? "";
  return { callback, state: get("state"), code: get("code"), iss: get("iss") };
}
