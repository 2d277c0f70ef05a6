// The native modules Rein loads work on the Node it runs on (Node 24 LTS).
// better-sqlite3 before 13 wrapped its objects in node::ObjectWrap, whose
// destructor on Node 24.19+ aborts the process when the GC collects a
// statement outside a JavaScript context (an idle GC, or at exit): the server
// would die at random after database writes. Version 13 uses Node-API.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);

function runNode(script: string, args: string[] = []) {
  return spawnSync(process.execPath, ["--expose-gc", "-e", script, ...args], { encoding: "utf8", timeout: 60_000 });
}

describe("native modules on this Node", () => {
  it("better-sqlite3: statements the GC collects while the process idles never abort it", () => {
    // Statements left to the GC while the loop turns, then an idle process: V8's
    // idle-time GC finalises them outside JavaScript (version 11 aborted here).
    const script = `
      const Database = require(process.argv[1]);
      const db = new Database(":memory:");
      db.exec("create table t (x)");
      let n = 0;
      const tick = () => {
        for (let i = 0; i < 5000; i++) db.prepare("select " + (n++ % 50)).get();
        if (n < 200000) return setImmediate(tick);
        db.prepare("insert into t values (?)").run(n);
        setTimeout(() => console.log("rows", db.prepare("select count(*) n from t").get().n), 12000);
      };
      tick();`;
    const out = runNode(script, [require.resolve("better-sqlite3")]);
    expect(out.stderr).not.toContain("Assertion failed");
    expect(out.signal, out.stderr).toBeNull();
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout).toContain("rows 1");
  });

  it("node-pty: spawns a program in a PTY and reads its output", () => {
    const script = `
      const pty = require(process.argv[1]);
      const p = pty.spawn("/bin/sh", ["-c", "echo pty-works"], { cols: 80, rows: 24 });
      let text = "";
      p.onData((d) => (text += d));
      p.onExit(({ exitCode }) => { console.log(text.includes("pty-works") ? "seen" : "missing", exitCode); });`;
    const out = runNode(script, [require.resolve("node-pty")]);
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout.trim()).toBe("seen 0");
  });
});
