// The mcp commands of the CLI against REST v1 on a real HTTP server: a stdio
// command line split as a shell would, variables and headers from secrets by
// name, and the service's refusals as the CLI's errors.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createApiToken } from "@/server/identity";
import { McpServers } from "@/server/mcp-client";
import { putSecret } from "@/server/secrets";
import { createTestKernel, SILENT_LOG, type TestKernel } from "@/test/helpers/kernel";
import { startRestServer, type RestTestServer } from "@/test/helpers/rest";
import { main } from "./cli-commands";
import { CliError } from "./cli-error";
import { splitCommand, valuesFrom } from "./cli-mcp";
import { testServices } from "@/test/helpers/services";
import { startOAuthMcpServer } from "@/test/helpers/oauth-mcp-server";

let tk: TestKernel;
let mcp: McpServers;
let rest: RestTestServer;
let token: string;
const logged: string[] = [];

const rein = (...words: string[]) => main([...words, "--url", rest.base, "--token", token]);

beforeAll(async () => {
  tk = await createTestKernel({ secrets: true });
  await putSecret(tk.t.db, tk.keyring!, { name: "CRM_TOKEN", value: "crm-secret-value-42", actor: null });
  mcp = new McpServers({ db: tk.t.db, registry: tk.kernel.deps.registry, dataDir: tk.t.dir, keyring: tk.keyring, log: SILENT_LOG });
  await mcp.start();
  token = (await createApiToken(tk.t.db, { userId: tk.users.admin, name: "cli" })).token;
  rest = await startRestServer(testServices(tk, { mcp }));
}, 60_000);

afterEach(() => {
  vi.restoreAllMocks();
  logged.length = 0;
});

afterAll(async () => {
  await rest?.close();
  await mcp?.stop();
  await tk?.cleanup();
});

describe("npm run rein -- mcp", () => {
  it("splits a command line as a shell would, without expanding anything", () => {
    expect(splitCommand(`node /opt/rein/node_modules/x/index.js stdio`)).toEqual(["node", "/opt/rein/node_modules/x/index.js", "stdio"]);
    expect(splitCommand(`node  'two words' "a \\"quote\\"" b\\ c "" $HOME`)).toEqual([
      "node",
      "two words",
      'a "quote"',
      "b c",
      "",
      "$HOME",
    ]);
    expect(() => splitCommand(`node "open`)).toThrow(CliError);
  });

  it("reads NAME=secret:SECRET and NAME=text", () => {
    expect(valuesFrom(["TOKEN=secret:CRM_TOKEN", "MODE=a=b", "EMPTY="], "--env")).toEqual({
      TOKEN: { secret: "CRM_TOKEN" },
      MODE: { value: "a=b" },
      EMPTY: { value: "" },
    });
    expect(() => valuesFrom(["=x"], "--env")).toThrow(/NAME=secret:SECRET_NAME/);
  });

  it("adds an HTTP server with a header from a secret, lists it, and removes it; the secret's value is never printed", async () => {
    vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void logged.push(args.join(" ")));
    await rein(
      "mcp",
      "add",
      "crm",
      "--http",
      "http://127.0.0.1:9/mcp",
      "--header",
      "Authorization=secret:CRM_TOKEN",
      "--call-timeout",
      "90",
    );
    expect(logged.join("\n")).toMatch(/^crm \(http\): failed — /);
    const stored = await tk.t.db.mcpServer.findUniqueOrThrow({ where: { name: "crm" } });
    expect(JSON.parse(stored.config)).toEqual({
      http: { url: "http://127.0.0.1:9/mcp", headers: { Authorization: { secret: "CRM_TOKEN" } } },
      callTimeoutSec: 90,
    });
    logged.length = 0;
    await rein("mcp", "list");
    expect(logged.join("\n")).toContain("0 of 0 tools on");
    expect(logged.join("\n")).toContain("Token budget per agent: 12000");
    await rein("mcp", "remove", "crm");
    expect(logged.join("\n")).not.toContain("crm-secret-value-42");
    expect(await tk.t.db.mcpServer.count()).toBe(0);
  });

  it("says what is wrong: both transports, a missing secret, an unknown server, review without a decision", async () => {
    await expect(rein("mcp", "add", "x", "--http", "http://a", "--stdio", "node")).rejects.toThrow(/--stdio .* or --http URL/);
    await expect(rein("mcp", "add", "x", "--stdio", "node server.js", "--header", "A=b")).rejects.toThrow(/--header is for --http servers/);
    await expect(rein("mcp", "add", "x", "--stdio", "node server.js", "--env", "TOKEN=secret:NO_SUCH")).rejects.toThrow(
      /400 INVALID_INPUT: No secret is called NO_SUCH/,
    );
    await expect(rein("mcp", "add", "x", "--stdio", "bash -c true")).rejects.toThrow(
      /stdio\.command: the command is "node" or an absolute path under \/usr/,
    );
    await expect(rein("mcp", "tools", "nobody")).rejects.toThrow(/404 NOT_FOUND: There is no MCP server named nobody/);
    await expect(rein("mcp", "review", "nobody", "echo")).rejects.toThrow(/--accept or --reject/);
    await expect(rein("mcp", "budget", "lots")).rejects.toThrow(/whole number/);
    expect(await tk.t.db.mcpServer.count()).toBe(0);
  });

  it("adds a hosted server with OAuth, prints where to authorize Rein, and forgets its tokens", async () => {
    const as = await startOAuthMcpServer();
    try {
      vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void logged.push(args.join(" ")));
      await rein("mcp", "add", "hosted", "--http", as.mcpUrl, "--oauth", "--scope", "mcp", "--authorization-server", as.issuer);
      expect(logged.join("\n")).toContain("OAuth: not authorized yet");
      expect(logged.join("\n")).toContain("npm run rein -- mcp authorize hosted");
      logged.length = 0;
      await rein("mcp", "authorize", "hosted");
      const url = logged.join("\n").split("\n").at(-1)!;
      expect(new URL(url).origin).toBe(as.issuer);
      expect(new URL(url).searchParams.get("scope")).toBe("mcp");
      await rein("mcp", "forget-authorization", "hosted");
      expect(logged.join("\n")).toContain("Rein forgot its tokens for hosted");
      await expect(rein("mcp", "add", "x", "--stdio", "node server.js", "--oauth")).rejects.toThrow(/--oauth and --scope are for --http/);
      await expect(rein("mcp", "add", "x", "--http", as.mcpUrl, "--scope", "mcp")).rejects.toThrow(
        /--scope and --authorization-server go with --oauth/,
      );
      await expect(rein("mcp", "authorize", "nobody")).rejects.toThrow(/404 NOT_FOUND/);
    } finally {
      await rein("mcp", "remove", "hosted").catch(() => {});
      await as.close();
    }
  });
});
