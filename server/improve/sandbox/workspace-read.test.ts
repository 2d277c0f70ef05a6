// The workspace:read capability wired as the improver will wire it: the
// tool's readFile is Rein's sandboxed Workspace.readFile for its own run, so
// another run's files stay out of reach by `..`, an absolute path or a
// symlink the tool's run planted. Needs bubblewrap, like the other workspace tests.
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTempDir } from "@/test/helpers/db";
import { workspaceFor, type Workspace } from "@/server/tools";
import { closeSandboxWorkers, runRuntimeTool, type SandboxHost } from "./index";

let dataDir: string;
let own: Workspace;
let other: Workspace;
let host: SandboxHost;

const SECRET = "the other run's secret";

beforeEach(async () => {
  dataDir = fs.realpathSync(makeTempDir("rein-test-sandbox-ws-"));
  own = workspaceFor(dataDir, "run-own");
  other = workspaceFor(dataDir, "run-other");
  await own.ensure();
  await other.ensure();
  fs.writeFileSync(path.join(other.root, "secret.txt"), SECRET);
  fs.writeFileSync(path.join(own.root, "sales.csv"), 'region,amount\nnorth,10\n"south, east",5.5\n');
  // What a run's shell could have planted in its own workspace.
  fs.symlinkSync(path.join(other.root, "secret.txt"), path.join(own.root, "absolute-link.txt"));
  fs.symlinkSync("../run-other/secret.txt", path.join(own.root, "relative-link.txt"));
  host = { readFile: async (p) => (await own.readFile(p, { maxBytes: 1024 * 1024 })).data.toString("utf8") };
});

afterEach(() => {
  own.release();
  other.release();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

afterAll(() => closeSandboxWorkers());

describe("rein.readFile over the run's Workspace", () => {
  it("reads a file of the run's own workspace", async () => {
    const source = `async function run(args, rein) {
      const lines = (await rein.readFile(args.file)).trim().split("\\n").slice(1);
      return lines.reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(",") + 1)), 0);
    }`;
    expect(await runRuntimeTool(source, { file: "sales.csv" }, host)).toMatchObject({ ok: true, output: 15.5 });
    expect(await runRuntimeTool(source, { file: "/workspace/sales.csv" }, host)).toMatchObject({ ok: true, output: 15.5 });
  });

  it("cannot read another run's file by .., an absolute path or a planted symlink", async () => {
    const attempts = [
      "../run-other/secret.txt",
      path.join(other.root, "secret.txt"),
      "/workspace/../run-other/secret.txt",
      "absolute-link.txt",
      "relative-link.txt",
    ];
    // The host really can read it: the sandbox is what stops the tool.
    expect(fs.readFileSync(path.join(own.root, "absolute-link.txt"), "utf8")).toBe(SECRET);
    const source = `async function run(args, rein) {
      const got = [];
      for (const p of args.paths) {
        try { got.push({ path: p, text: await rein.readFile(p) }); } catch (e) { got.push({ path: p, refused: e.message }); }
      }
      return got;
    }`;
    const r = await runRuntimeTool(source, { paths: attempts }, host);
    if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
    const got = r.output as Array<{ path: string; text?: string; refused?: string }>;
    expect(got.map((g) => g.path)).toEqual(attempts);
    for (const g of got) {
      expect(g.text, g.path).toBeUndefined();
      expect(g.refused, g.path).toEqual(expect.any(String));
    }
    expect(JSON.stringify(got)).not.toContain(SECRET);
    expect(got[0].refused).toBe('Path "../run-other/secret.txt" is outside the workspace');
  });

  it("a refusal the tool does not catch is the run's HOST_ERROR, with the workspace's message", async () => {
    const r = await runRuntimeTool('async function run(a, rein) { return await rein.readFile("../run-other/secret.txt") }', null, host);
    expect(r).toMatchObject({
      ok: false,
      error: {
        code: "HOST_ERROR",
        message: 'rein.readFile("../run-other/secret.txt") failed: Path "../run-other/secret.txt" is outside the workspace',
      },
    });
  });
});
