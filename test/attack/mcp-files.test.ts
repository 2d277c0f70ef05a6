// A run's files over MCP (docs/mcp-server.md#resources): a person reads the
// files of runs they may see, and nothing else. Paths are the agent's and the
// client's: a path out of the workspace, a symlink the agent left pointing
// at the server's files, .git, or another team's run give an error and no bytes.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { createApiToken, createUser } from "@/server/identity";
import { createRun } from "@/server/kernel";
import { serveMcp, type McpHttpServer } from "@/test/helpers/mcp-server";
import { testServices } from "@/test/helpers/services";

let tk: TestKernel;
let server: McpHttpServer;
let url: string;
let runId: string;
let root: string;
const tokens = {} as Record<"viewer" | "outsider", string>;
const clients: Client[] = [];

beforeAll(async () => {
  tk = await createTestKernel({ hitl: true });
  tokens.viewer = (await createApiToken(tk.t.db, { userId: tk.users.viewer, name: "viewer" })).token;
  const outsider = await createUser(tk.t.db, {
    email: "viewer@other.team",
    password: "password-123",
    role: "viewer",
    teams: ["other-team"],
  });
  tokens.outsider = (await createApiToken(tk.t.db, { userId: outsider, name: "outsider" })).token;
  server = await serveMcp(testServices(tk));
  url = server.url;
  const run = await createRun(tk.kernel, { goal: "Write notes", agent: "demo-coder" }, tk.actors.operator);
  runId = run.id;
  expect(await tk.settle(runId)).toBe("succeeded");
  // What an agent could leave behind: a link to the server's own files.
  root = tk.kernel.deps.workspaceFor(runId).root;
  fs.writeFileSync(path.join(root, "notes.txt"), "the agent's notes\n");
  fs.symlinkSync("/etc/passwd", path.join(root, "leak"));
  fs.symlinkSync("/etc", path.join(root, "etc-dir"));
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await server?.close();
  await tk?.cleanup();
});

async function connect(role: keyof typeof tokens, mode: "auto" | "legacy" = "auto") {
  const client = new Client({ name: "rein-attack", version: "1.0.0" }, { versionNegotiation: { mode } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${tokens[role]}` } } }),
  );
  clients.push(client);
  return client;
}

const read = (client: Client, uri: string) =>
  client.readResource({ uri }).then(
    (r) => ({ text: (r.contents[0] as { text?: string }).text ?? "", error: null as string | null }),
    (err: Error) => ({ text: "", error: err.message }),
  );

describe("a run's files over MCP", () => {
  it.each(["auto", "legacy"] as const)("are listed and read by a person of the run's team (%s)", async (mode) => {
    const client = await connect("viewer", mode);
    const listing = JSON.parse((await read(client, `rein://runs/${runId}/files`)).text);
    expect(listing).toMatchObject({ runId, exists: true, truncated: false });
    expect(listing.files.map((f: { path: string }) => f.path)).toContain("notes.txt");
    expect(await read(client, `rein://runs/${runId}/files/notes.txt`)).toEqual({ text: "the agent's notes\n", error: null });
  });

  it.each([
    ["a path out of the workspace", "../../../etc/passwd"],
    ["an encoded one", "..%2F..%2F..%2Fetc%2Fpasswd"],
    ["an absolute one", "%2Fetc%2Fpasswd"],
    ["a symlink to the server's files", "leak"],
    ["a file through a symlinked folder", "etc-dir/passwd"],
    ["git's own files", ".git/config"],
    ["a malformed escape", "%E0%A4%A"],
  ])("%s gives an error and no bytes", async (_what, p) => {
    const client = await connect("viewer");
    const got = await read(client, `rein://runs/${runId}/files/${p}`);
    expect(got.error).toBeTruthy();
    expect(got.text).toBe("");
    // Neither the file's lines nor where the workspace is on the server.
    expect(got.error).not.toMatch(/root:x:/);
    expect(got.error).not.toContain(root);
  });

  it("of another team's run are not found, listing or file", async () => {
    const client = await connect("outsider");
    for (const uri of [`rein://runs/${runId}/files`, `rein://runs/${runId}/files/notes.txt`]) {
      const got = await read(client, uri);
      expect(got.text).toBe("");
      expect(got.error).toMatch(/was not found/);
    }
  });
});
