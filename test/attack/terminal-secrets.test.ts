// Attack suite, issue class 4: a secret a command was given never reaches a
// watcher of the terminal, whatever the command does to hide it from a
// redactor: two halves 100 ms apart, colour codes, NULs, OSC titles or a
// backspace between its characters, or cursor movements that put it together
// on the screen. Checked on what a watcher would see: the live stream as the
// socket relays it, drawn by a terminal emulator, the snapshot a late watcher
// gets, and the last screen kept after the terminal ends.
import fs from "node:fs";
import * as headless from "@xterm/headless";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_LIMITS, PtyPod, probeSandbox } from "@/server/compute";
import { PodStream } from "@/server/realtime";
import { makeTempDir } from "../helpers/db";

const VALUE = "dpl-7Hq2zX9vLm4K-s3cr3t-0042";
const Terminal = ((headless as unknown as { Terminal?: unknown }).Terminal ??
  (headless as unknown as { default: { Terminal: unknown } }).default.Terminal) as typeof headless.Terminal;

const TRICKS: Array<[string, string]> = [
  ["two halves 100 ms apart", `printf '%s' "\${T:0:12}"; sleep 0.1; printf '%s\\n' "\${T:12}"`],
  [
    "a colour code between every character",
    `for ((i=0;i<\${#T};i++)); do printf '%s\\033[3%dm' "\${T:i:1}" $((i%7)); done; printf '\\033[0m\\n'`,
  ],
  ["a NUL between every character", `for ((i=0;i<\${#T};i++)); do printf '%s\\0' "\${T:i:1}"; done; echo`],
  ["an OSC title between every character", `for ((i=0;i<\${#T};i++)); do printf '%s\\033]0;t%d\\007' "\${T:i:1}" $i; done; echo`],
  ["a character overwritten by a backspace", `printf '%sX\\b%s\\n' "\${T:0:10}" "\${T:10}"`],
  ["the second half drawn first, the first half put before it with the cursor", `printf '\\033[12C%s\\r%s\\n' "\${T:12}" "\${T:0:12}"`],
];

/** The text a terminal shows for a stream of output, scrollback included. */
async function rendered(data: string): Promise<string> {
  const term = new Terminal({ cols: 120, rows: 32, scrollback: 5000, allowProposedApi: true });
  await new Promise<void>((r) => term.write(data, r));
  const b = term.buffer.active;
  const lines: string[] = [];
  for (let y = 0; y < b.length; y++) lines.push(b.getLine(y)?.translateToString(true) ?? "");
  term.dispose();
  return lines.join("\n");
}

describe.skipIf(!probeSandbox().ok)("a secret on the terminal", () => {
  const dir = makeTempDir("rein-attack-term-");
  let pod: PtyPod;
  let stream: PodStream;
  let live = "";
  const results: string[] = [];

  beforeAll(async () => {
    pod = await PtyPod.start({ workspaceDir: dir, limits: DEFAULT_LIMITS, sandbox: "bubblewrap" });
    let seq = 0;
    stream = new PodStream(
      pod,
      () => ++seq,
      0,
      () => {},
    );
    stream.onData((_seq, data) => (live += data));
    for (const [, command] of TRICKS) {
      const r = await pod.exec(command, { timeoutMs: 15_000, env: { T: VALUE } });
      results.push(r.output);
    }
    await new Promise((r) => setTimeout(r, 100));
    // Everything read so far has been parsed and handed out once a snapshot comes back.
    await new Promise((r) => stream.snapshot(r));
  }, 60_000);

  afterAll(async () => {
    await pod?.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("never reaches a watcher of the live stream, as a terminal draws it", async () => {
    const screen = await rendered(live);
    expect(screen).toContain("[secret:T]");
    expect(screen).not.toContain(VALUE);
    expect(live).not.toContain(VALUE);
  });

  it("is not in the tool results the agent gets", () => {
    for (const [i, out] of results.entries()) expect(out, TRICKS[i][0]).not.toContain(VALUE);
  });

  it("is not in the snapshot a late watcher gets, nor in the last screen kept after the end", async () => {
    const snapshot = await new Promise<string>((r) => stream.snapshot((s) => r(s.data)));
    expect(await rendered(snapshot)).not.toContain(VALUE);
    const last = await new Promise<string>((r) => stream.finish((s) => r(s.data)));
    expect(await rendered(last)).not.toContain(VALUE);
    expect(last).not.toContain(VALUE);
  });
});
