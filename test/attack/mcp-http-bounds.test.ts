// Attack: a Streamable HTTP MCP server answers with more than Rein reads
// (docs/security.md#what-external-servers-send): a 20 MB JSON body, a 20 MB
// SSE event, a body of too many distinct names. Each fails its call with a
// clear error, and the same server answers the next call.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { McpServers } from "@/server/mcp";
import type { ToolContext } from "@/server/tools";
import { createTestKernel, SILENT_LOG, type TestKernel } from "../helpers/kernel";
import { startFakeHttpServer, type FakeHttpServer } from "../helpers/fake-mcp-http";

let tk: TestKernel;
let mcp: McpServers;
let server: FakeHttpServer;

beforeEach(async () => {
  tk = await createTestKernel();
  server = await startFakeHttpServer();
  mcp = new McpServers({ db: tk.t.db, registry: tk.kernel.deps.registry, dataDir: tk.t.dir, keyring: tk.keyring, log: SILENT_LOG, connectTimeoutMs: 5_000 });
  await mcp.start();
  await mcp.add(tk.actors.admin, { name: "remote", transport: "http", http: { url: server.url } });
  for (const tool of ["huge", "flood", "tangle", "hello"]) await mcp.setTool(tk.actors.admin, "remote", tool, { enabled: true });
});
afterEach(async () => {
  await mcp.stop();
  server.stop();
  await tk.cleanup();
});

const ctx = (): ToolContext => ({ runId: "attack", workspace: null as never, agent: { name: "demo-mcp", handoffs: [] }, actorId: tk.users.admin, teamId: null, signal: new AbortController().signal });
const call = (tool: string) => tk.kernel.deps.registry.get(`remote__${tool}`)!.execute({}, ctx());

describe("a Streamable HTTP server's answer is bounded", () => {
  it.each([
    ["a 20 MB JSON body", "huge", /answer was too large: 20,000,\d{3} bytes, 17,902,\d{3} over the limit of 2,097,152 bytes/],
    ["a 20 MB SSE event", "flood", /answer was too large: 20,000,\d{3} bytes, 17,902,\d{3} over the limit/],
    ["a body of 20,000 distinct names", "tangle", /more than 10,000 distinct member names/],
  ])("%s fails its call with a clear error; the next call works", async (_, tool, message) => {
    await expect(call(tool)).rejects.toMatchObject({ code: "MCP_ANSWER_TOO_LARGE", message: expect.stringMatching(message) });
    expect(await call("hello")).toBe("Hello!");
  });
});
