// Attack suite: what an agent prints can never stall the server or blind the
// live terminal. Counts in control sequences (`printf 'x\e[100000000b'`
// repeats a character 10^8 times) are capped before any emulator, the
// server's or a watcher's, sees them; the stream keeps working afterwards,
// and a screen that fails anyway is replaced without touching the others.
import * as headless from "@xterm/headless";
import { describe, expect, it } from "vitest";
import { threadId } from "node:worker_threads";
import { MarkerScanner } from "@/server/compute";
import {
  LocalScreens,
  PodStream,
  RESET_NOTE,
  WorkerScreens,
  terminalScreens,
  type ScreenChannel,
  type ScreenRequest,
} from "@/server/realtime";
import { fakeTerminalPod } from "../helpers/fake-pod";

const Terminal = ((headless as unknown as { Terminal?: unknown }).Terminal ??
  (headless as unknown as { default: { Terminal: unknown } }).default.Terminal) as typeof headless.Terminal;

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
  const stream = new PodStream(
    fake.pod,
    () => ++seq,
    0,
    () => {},
  );
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
      expect(
        seqs.map((s) => s.final),
        `cut at ${cut}`,
      ).toEqual(["b", "H", "X"]);
      expect(
        seqs.flatMap((s) => s.params).every((p) => p <= COLS * ROWS),
        `cut at ${cut}`,
      ).toBe(true);
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

describe("where the server's terminals run", () => {
  it("every stream's headless terminal runs on a worker thread, never on the server's event loop", async () => {
    const screens = terminalScreens();
    expect(screens).toBeInstanceOf(WorkerScreens);
    const { stream, sent } = await feed(["x\u001b[100000000b", "\r\nafter\r\n"]);
    expect(sent()).toContain("after");
    const thread = await (screens as WorkerScreens).thread();
    expect(thread).not.toBe(threadId);
    stream.dispose();
  });
});

describe("a terminal whose screen fails", () => {
  it("if the terminal thread dies, a new one starts and the stream goes on after a reset note", async () => {
    const screens = new WorkerScreens();
    const fake = fakeTerminalPod();
    let seq = 0;
    const stream = new PodStream(
      fake.pod,
      () => ++seq,
      0,
      () => {},
      screens,
    );
    const sent: string[] = [];
    stream.onData((_s, d) => sent.push(d));
    fake.emit("before\r\n");
    const first = await screens.thread();
    await new Promise((r) => stream.snapshot(r));
    await (screens as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    fake.emit("after\r\n");
    const screen = await new Promise<string>((r) => stream.snapshot((s) => r(s.data)));
    expect(sent.join("")).toContain("after");
    expect(screen).toContain("screen was reset");
    expect(screen).toContain("after");
    expect(await screens.thread()).not.toBe(first);
    stream.dispose();
    await screens.close();
  });

  it("a grapheme of 1,001 code points repeated 2^31-1 times leaves the live terminal working", async () => {
    const cluster = `e${"\u0301".repeat(1000)}`;
    const { fake, stream, sent } = await feed([cluster, "\u001b[2147483647b"]);
    fake.emit("\r\nstill here\r\n");
    const screen = await new Promise<string>((r) => stream.snapshot((s) => r(s.data)));
    expect(sent()).toContain("still here");
    expect(screen).toContain("still here");
    stream.dispose();
  });

  it("is replaced by a fresh one, watchers are told, and another terminal is not affected", async () => {
    // Whatever makes one screen throw (here: a request the screen cannot read), only that screen is reset.
    const local = new LocalScreens();
    const breaking: ScreenChannel = {
      onReply: (id, l) => local.onReply(id, l),
      request: <T>(req: ScreenRequest) =>
        local.request<T>(req.op === "write" && req.data.includes("BREAK") ? ({ ...req, forms: null } as unknown as ScreenRequest) : req),
    };
    const a = fakeTerminalPod({ id: "pod-a" });
    const b = fakeTerminalPod({ id: "pod-b" });
    let seq = 0;
    const streamA = new PodStream(
      a.pod,
      () => ++seq,
      0,
      () => {},
      breaking,
    );
    const streamB = new PodStream(
      b.pod,
      () => ++seq,
      0,
      () => {},
      breaking,
    );
    const sentA: string[] = [];
    const sentB: string[] = [];
    const resets: string[] = [];
    streamA.onData((_s, d) => sentA.push(d));
    streamB.onData((_s, d) => sentB.push(d));
    streamA.onReset((reason) => resets.push(reason));
    a.emit("before\r\n");
    b.emit("b1\r\n");
    a.emit("BREAK\r\n");
    b.emit("b2\r\n");
    await new Promise((r) => streamA.snapshot(r));
    a.emit("after\r\n");
    const [screenA, screenB] = await Promise.all([streamA, streamB].map((s) => new Promise<string>((r) => s.snapshot((x) => r(x.data)))));
    expect(resets).toHaveLength(1);
    expect(resets[0]).toMatch(/TypeError/);
    expect(sentA.join("")).toContain(RESET_NOTE);
    expect(sentA.join("")).not.toContain("BREAK");
    expect(sentA.at(-1)).toBe("after\r\n");
    expect(screenA).toContain("screen was reset");
    expect(screenA).toContain("after");
    expect(sentB.join("")).toBe("b1\r\nb2\r\n");
    expect(screenB).toContain("b2");
    streamA.dispose();
    streamB.dispose();
  });
});

describe("the shell's markers in hostile output", () => {
  it("an unterminated marker does not make the scanner hold, and scan again, everything printed after it", () => {
    const scanner = new MarkerScanner();
    const read = "y".repeat(4095);
    let text = 0;
    const count = (pieces: ReturnType<MarkerScanner["push"]>) => pieces.forEach((p) => "text" in p && (text += p.text.length));
    count(scanner.push("\u001b]6973;"));
    // 4 MB without a BEL: each read's text comes back at once (the scanner keeps only what can still be a marker).
    for (let i = 0; i < 1000; i++) {
      count(scanner.push(read));
      expect(text, `after read ${i}`).toBeGreaterThanOrEqual((i + 1) * 4095);
    }
    // Real markers still work afterwards.
    const after = scanner.push("\u001b]6973;E;3\u0007done");
    expect(after).toContainEqual({ kind: "end", exitCode: 3 });
  });
});
