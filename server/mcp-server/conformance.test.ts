// The MCP conformance suite's server scenarios (@modelcontextprotocol/conformance,
// its "active" suite) against Rein's /mcp handler on a real port.
//
// The suite's client cannot send an Authorization header, so the handler
// here is built with `authenticate` returning a fixed operator: the test-only
// option of createMcpHandler, which server.ts never passes (there every
// request needs an API token). Everything else is the production path: the
// Origin rule, the body checks, the stateless transport and the tools.
//
// Most scenarios ask for the reference "everything" server's own tools,
// resources and prompts (test_image_content, test://static-text,
// test_simple_prompt...), which Rein does not have; they are listed below
// with the reason. The test fails when a scenario fails that is not listed,
// and when a listed one passes (the list is stale). server-sse-multiple-streams
// only warns that there is no session to test streams on.
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { startMcpServer, type McpTestServer } from "./testing";
import { testServices } from "@/test/helpers/services";

const CLI = path.resolve("node_modules/@modelcontextprotocol/conformance/dist/index.js");

const NOT_REIN = "asks for a tool, resource or prompt of the reference test server that Rein does not have";
const EXPECTED_FAILURES: Record<string, string> = {
  "completion-complete":
    "completes an argument of the prompt test_prompt_with_arguments; Rein has no prompts (it completes run ids of rein://runs/{runId}/events)",
  "tools-call-simple-text": `${NOT_REIN} (test_simple_text): an unknown tool is a protocol error (-32602), as the specification says`,
  "tools-call-error": `${NOT_REIN} (test_error_handling): see tools-call-simple-text`,
  "tools-call-image": NOT_REIN,
  "tools-call-audio": NOT_REIN,
  "tools-call-embedded-resource": NOT_REIN,
  "tools-call-mixed-content": NOT_REIN,
  "tools-call-with-logging": NOT_REIN,
  "tools-call-with-progress": `${NOT_REIN}; Rein's wait_for_run sends progress (mcp-server.test.ts)`,
  "tools-call-sampling": `${NOT_REIN}; Rein asks nothing of the client's model`,
  "tools-call-elicitation": `${NOT_REIN} (test_elicitation); Rein elicits only a run's human requests, from wait_for_run (elicitation.test.ts)`,
  "elicitation-sep1034-defaults": `${NOT_REIN} (test_elicitation_sep1034_defaults); see tools-call-elicitation`,
  "elicitation-sep1330-enums": `${NOT_REIN} (test_elicitation_sep1330_enums); see tools-call-elicitation`,
  "resources-read-text": NOT_REIN,
  "resources-read-binary": NOT_REIN,
  "resources-templates-read": `${NOT_REIN} (test://template/{id}/data)`,
  "resources-subscribe": "Rein offers no resource subscriptions: they need a session, and /mcp keeps none",
  "resources-unsubscribe": "see resources-subscribe",
  "prompts-list": "Rein has no prompts, so it does not declare the prompts capability",
  "prompts-get-simple": "Rein has no prompts",
  "prompts-get-with-args": "Rein has no prompts",
  "prompts-get-embedded-resource": "Rein has no prompts",
  "prompts-get-with-image": "Rein has no prompts",
};

let tk: TestKernel;
let mcp: McpTestServer;
let outDir: string;

beforeAll(async () => {
  tk = await createTestKernel({ hitl: true });
  const operator = tk.actors.operator;
  mcp = await startMcpServer(testServices(tk), { authenticate: async () => operator });
  outDir = fs.mkdtempSync(path.join(os.tmpdir(), "rein-mcp-conformance-"));
});

afterAll(async () => {
  await mcp?.close();
  await tk?.cleanup();
  if (outDir) fs.rmSync(outDir, { recursive: true, force: true });
});

function runSuite(): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, "server", "--url", mcp.url, "--output-dir", outDir], { timeout: 25_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, output: `${stdout}\n${stderr}` }),
    );
  });
}

/** Each scenario's checks, from the files the suite writes (server-<scenario>-<timestamp>/checks.json). */
function results(): Map<string, Array<{ id: string; status: string; errorMessage?: string }>> {
  const byScenario = new Map<string, Array<{ id: string; status: string; errorMessage?: string }>>();
  for (const dir of fs.readdirSync(outDir)) {
    const scenario = dir.replace(/^server-/, "").replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, "");
    byScenario.set(scenario, JSON.parse(fs.readFileSync(path.join(outDir, dir, "checks.json"), "utf8")));
  }
  return byScenario;
}

describe("MCP conformance, server scenarios", () => {
  it("passes every scenario but the expected failures, each for its reason", async () => {
    const { output } = await runSuite();
    const scenarios = results();
    expect([...scenarios.keys()], output).toEqual(
      expect.arrayContaining([
        "server-initialize",
        "ping",
        "tools-list",
        "logging-set-level",
        "resources-list",
        "dns-rebinding-protection",
      ]),
    );
    const failed = [...scenarios].filter(([, checks]) => checks.some((c) => c.status === "FAILURE")).map(([name]) => name);
    const unexpected = failed
      .filter((name) => !(name in EXPECTED_FAILURES))
      .map((name) => `${name}: ${scenarios.get(name)!.find((c) => c.status === "FAILURE")!.errorMessage}`);
    expect(unexpected, "scenarios that fail and are not expected to").toEqual([]);
    const stale = Object.keys(EXPECTED_FAILURES).filter((name) => !failed.includes(name));
    expect(stale, "expected failures that now pass or no longer run: remove them from the list").toEqual([]);
    // DNS rebinding: refused with the attacker's Host and Origin, taken with loopback ones.
    expect(scenarios.get("dns-rebinding-protection")!.map((c) => [c.id, c.status])).toEqual([
      ["localhost-host-rebinding-rejected", "SUCCESS"],
      ["localhost-host-valid-accepted", "SUCCESS"],
    ]);
  }, 30_000);
});
