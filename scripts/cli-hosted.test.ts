// The hosted commands of the CLI against REST v1 on a real HTTP server:
// list, install waiting for a background install and printing how it goes
// (and its failure as the CLI's error), and test printing what Rein's test
// agent answered.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { HostedPrograms, registerHostedProgram, type HostedProgram } from "@/server/hosted";
import { createApiToken } from "@/server/identity";
import { createTestKernel, type TestKernel } from "@/test/helpers/kernel";
import { startRestServer, type RestTestServer } from "@/test/helpers/rest";
import { testServices } from "@/test/helpers/services";
import { main } from "./cli-commands";
import { CliError } from "./cli-error";

let tk: TestKernel;
let rest: RestTestServer;
let token: string;
const logged: string[] = [];
const installedNow = new Set<string>();
const unregister: Array<() => void> = [];

const rein = (...words: string[]) => main([...words, "--url", rest.base, "--token", token]);

const program = (id: string): HostedProgram => ({
  id,
  name: `Program ${id}`,
  description: "A program of this test.",
  speaks: ["openai-chat"],
  loadsSessions: false,
  package: { name: `@example/${id}`, version: "1.0.0", integrity: "sha512-x" },
  install: () => (installedNow.has(id) ? { binds: [] } : { missing: `@example/${id}@1.0.0 is not installed` }),
  argv: ["node", "-e", ""],
  env: () => ({}),
});

beforeAll(async () => {
  tk = await createTestKernel();
  const hosted = new HostedPrograms({
    db: tk.t.db,
    // An install that takes a moment, so the CLI waits; "@example/broken" fails.
    install: async (pkg) => {
      await new Promise((resolve) => setTimeout(resolve, 700));
      if (pkg.name === "@example/broken") throw new Error("npm install failed (exit code 1): E404 Not Found");
      installedNow.add(pkg.name.replace("@example/", ""));
      return "";
    },
  });
  token = (await createApiToken(tk.t.db, { userId: tk.users.admin, name: "cli" })).token;
  rest = await startRestServer(testServices(tk, { hosted }));
});

afterEach(() => {
  vi.restoreAllMocks();
  logged.length = 0;
  while (unregister.length) unregister.pop()!();
});

afterAll(async () => {
  await rest?.close();
  await tk?.cleanup();
});

const capture = () => vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void logged.push(args.join(" ")));

describe("npm run rein -- hosted", () => {
  it("lists the programs with their state and the agents using them", async () => {
    capture();
    await rein("hosted", "list");
    const out = logged.join("\n");
    expect(out).toContain("rein-test-agent — Rein test agent (comes with Rein): installed");
    expect(out).toMatch(/model calls: OpenAI Chat Completions; reloads a session after a restart: yes; agents: demo-hosted/);
    expect(out).toMatch(/claude-code — Claude Code \(@zed-industries\/claude-code-acp@[\d.]+\): (installed|not installed — )/);
  });

  it("install waits for the install and prints how it goes", async () => {
    unregister.push(registerHostedProgram(program("good")));
    capture();
    await rein("hosted", "install", "good");
    expect(logged).toEqual(["Installing @example/good@1.0.0 with npm…", "Program good is installed (@example/good@1.0.0)"]);
  });

  it("install ends with the failure in words", async () => {
    unregister.push(registerHostedProgram(program("broken")));
    capture();
    const err = await rein("hosted", "install", "broken").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as Error).message).toBe("The install of @example/broken@1.0.0 failed: npm install failed (exit code 1): E404 Not Found");
    await expect(rein("hosted", "install", "rein-test-agent")).rejects.toThrow(
      "409 CONFLICT: Rein test agent comes with Rein; there is nothing to install",
    );
    await expect(rein("hosted", "install")).rejects.toThrow("usage: npm run rein -- hosted install ID");
  });

  it("test prints what Rein's test agent answered, and a program that cannot start is an error", async () => {
    capture();
    await rein("hosted", "test", "rein-test-agent");
    expect(logged).toEqual([
      "Rein test agent answered as rein-test-agent 1.0.0, protocol version 1; it can reload a session (session/load); it asks for no sign-in.",
    ]);
    unregister.push(registerHostedProgram(program("absent")));
    await expect(rein("hosted", "test", "absent")).rejects.toThrow(
      "Program absent cannot start here: @example/absent@1.0.0 is not installed",
    );
  });
});
