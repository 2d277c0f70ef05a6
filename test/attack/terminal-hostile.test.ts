// Attack suite: what an agent prints can never stall the server or blind the
// live terminal. Counts in control sequences (`printf 'x\e[100000000b'`
// repeats a character 10^8 times) are capped before any emulator, the
// server's or a watcher's, sees them; the stream keeps working afterwards.
import * as headless from "@xterm/headless";
import { describe, expect, it } from "vitest";
import { PodStream } from "@/server/realtime";
import { fakeTerminalPod } from "../helpers/fake-pod";

const Terminal = ((headless as unknown as { Terminal?: unknown }).Terminal ?? (headless as unknown as { default: { Terminal: unknown } }).default.Terminal) as typeof headless.Terminal;

const COLS = 120;
const ROWS = 32;
const HOSTILE = [
  "x\u001b[100000000b",
  "x\u001b[2147483647b",
  "x\u001b[0000000000000000000000000000000000000000000000100000000b",
  "x\u009b100000000b",
  "\u001b[99999999@\u001b[99999999P\u001b[99999999X\u001b[99999999L\u001b[99999999M",
  "\u001b[99999999S\u001b[99999999T\u001b[99999999A\u001b[99999999B\u001b[99999999C\u001b[99999999D",
  "\u001b[99999999;99999999H\u001b[99999999;99999999f\u001b[99999999G\u001b[99999999d\u001b[99999999E\u001b[99999999F",
  "\u001b[1;99999999r\u001b[99999999 @\u001b[99999999 A\u001b[99999999I\u001b[99999999Z\u001b[99999999`\u001b[99999999a\u001b[99999999e",
];

/** Every CSI sequence in `data` with its numeric parameters, as a terminal's parser splits them. */
function csiSequences(data: string) {
  const found: Array<{ final: string; params: number[] }> = [];
  for (const m of data.matchAll(/(?:\u001b\[|\u009b)([<=>?]?)([0-9;:]*)([ -/]*)([@-~])/g)) {
    found.push({ final: m[3] + m[4], params: m[2].split(/[;:]/).filter(Boolean).map(Number) });
  }
  return found;
}

async function feed(chunks: string[]) {
  const fake = fakeTerminalPod();
  let seq = 0;
  const stream = new PodStream(fake.pod, () => ++seq, 0, () => {});
  let sent = "";
  stream.onData((_s, d) => (sent += d));
  for (const c of chunks) fake.emit(c);
  const screen = await new Promise<string>((r) => stream.snapshot((s) => r(s.data)));
  return { fake, stream, sent: () => sent, screen };
}

describe("hostile control sequences on the terminal", () => {
  it("reach the server's terminal and the watchers with every count capped to the screen", async () => {
    for (const hostile of HOSTILE) {
      const { stream, sent } = await feed([hostile, "\r\nafter\r\n"]);
      for (const { final, params } of csiSequences(sent())) {
        const cap = final === "b" ? COLS * ROWS : Math.max(COLS, ROWS);
        for (const p of params) expect(p, `${JSON.stringify(hostile)} -> ${final}`).toBeLessThanOrEqual(cap);
      }
      expect(sent()).toContain("after");
      stream.dispose();
    }
  });

  it("are capped however the output is split into reads", async () => {
    const hostile = "ab\u001b[100000000b\u001b[1;99999999H\u009b7777777777X";
    for (let cut = 0; cut <= hostile.length; cut++) {
      const { stream, sent } = await feed([hostile.slice(0, cut), hostile.slice(cut)]);
      const seqs = csiSequences(sent());
      expect(seqs.map((s) => s.final), `cut at ${cut}`).toEqual(["b", "H", "X"]);
      expect(seqs.flatMap((s) => s.params).every((p) => p <= COLS * ROWS), `cut at ${cut}`).toBe(true);
      stream.dispose();
    }
  });

  it("a watcher's emulator parses only capped counts, and ordinary sequences pass unchanged", async () => {
    const ordinary = "x\u001b[3b\u001b[?1049h\u001b[38;2;255;0;0mred\u001b[0m\u001b[2J\u001b[5;10H\u001b]0;title\u0007\u001b(B";
    const { stream, sent } = await feed([ordinary, "y\u001b[100000000b"]);
    expect(sent().startsWith(ordinary)).toBe(true);
    const watcher = new Terminal({ cols: COLS, rows: ROWS, allowProposedApi: true });
    const counts: number[] = [];
    watcher.parser.registerCsiHandler({ final: "b" }, (params) => (counts.push(Number(params[0])), false));
    await new Promise<void>((r) => watcher.write(sent(), r));
    expect(counts).toEqual([3, COLS * ROWS]);
    watcher.dispose();
    stream.dispose();
  });

  it("leave the stream working: later output reaches watchers and the screen", async () => {
    const { fake, stream, sent } = await feed(HOSTILE);
    fake.emit("\u001b[2J\u001b[Hstill here\r\n");
    const screen = await new Promise<string>((r) => stream.snapshot((s) => r(s.data)));
    expect(sent()).toContain("still here");
    expect(screen).toContain("still here");
    stream.dispose();
  });
});
