import { describe, expect, it } from "vitest";
import { fakeTerminalPod } from "@/test/helpers/fake-pod";
import { PodStream, clampSize } from "./terminal-stream";

const fakePod = () => fakeTerminalPod({ id: "pod-test" });

const settle = () => new Promise((r) => setTimeout(r, 30));
/** Waits for the headless terminal to have parsed a large output, however busy the machine. */
async function until(done: () => boolean) {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
}

describe("PodStream", () => {
  it("hands out every chunk in order, numbered, after the headless terminal parsed it", async () => {
    const fake = fakePod();
    let seq = 10;
    const stream = new PodStream(
      fake.pod,
      () => ++seq,
      seq,
      () => {},
    );
    const got: Array<[number, string]> = [];
    stream.onData((s, d) => got.push([s, d]));
    for (let i = 1; i <= 500; i++) fake.emit(`line ${i}\r\n`);
    await until(() => got.map(([, d]) => d).join("").length >= 500 * 8);
    expect(got.map(([, d]) => d).join("")).toBe(Array.from({ length: 500 }, (_, i) => `line ${i + 1}\r\n`).join(""));
    expect(got[0][0]).toBe(11);
    got.forEach(([s], i) => i > 0 && expect(s).toBe(got[i - 1][0] + 1));
    stream.dispose();
  });

  it("hands out a program's bulk output (full reads) in few large chunks, in order, and a short read without waiting for more", async () => {
    const fake = fakePod();
    let seq = 0;
    const stream = new PodStream(
      fake.pod,
      () => ++seq,
      seq,
      () => {},
    );
    const got: string[] = [];
    stream.onData((_, d) => got.push(d));
    // Full PTY reads (4095 bytes), a few per turn of the event loop.
    const reads = Array.from({ length: 64 }, (_, i) => `${String(i).padStart(4, "0")}${"x".repeat(194)}\r\n`.repeat(21).slice(0, 4095));
    for (let i = 0; i < reads.length; i++) {
      fake.emit(reads[i]);
      if (i % 2 === 1) await new Promise((r) => setImmediate(r));
    }
    fake.emit("done\r\n$ ");
    await until(() => got.join("").endsWith("$ "));
    expect(got.join("")).toBe(`${reads.join("")}done\r\n$ `);
    // One message per read would be 65; 256 KiB go out in about four 64 KiB chunks.
    expect(got.length).toBeLessThan(16);
    expect(Math.max(...got.map((d) => d.length))).toBeLessThanOrEqual(64 * 1024 + 4095);

    // A keystroke's echo after a pause is a message of its own.
    const before = got.length;
    fake.emit("l");
    await until(() => got.length > before);
    await settle();
    expect(got.slice(before)).toEqual(["l"]);
    stream.dispose();
  });

  it("snapshots exactly what was handed out so far, with scrollback and colours", async () => {
    const fake = fakePod();
    let seq = 0;
    const stream = new PodStream(
      fake.pod,
      () => ++seq,
      0,
      () => {},
    );
    fake.emit("\u001b[31mred\u001b[0m plain\r\n");
    for (let i = 1; i <= 100; i++) fake.emit(`row ${i}\r\n`);
    const screen = await new Promise<{ data: string; seq: number }>((resolve) => stream.snapshot(resolve));
    expect(screen.seq).toBe(seq);
    expect(screen.data).toContain("\u001b[31mred\u001b[0m plain");
    expect(screen.data).toContain("row 1\r\n");
    expect(screen.data).toContain("row 100");
    stream.dispose();
  });

  it("follows the shell's prompt markers", async () => {
    const fake = fakePod();
    const stream = new PodStream(
      fake.pod,
      () => 1,
      0,
      () => {},
    );
    expect(stream.atPrompt).toBe(true);
    fake.emit("vi x\r\n\u001b]6973;S\u0007");
    expect(stream.atPrompt).toBe(false);
    fake.emit("\u001b]6973;E;0\u0007/workspace $ ");
    expect(stream.atPrompt).toBe(true);
    stream.dispose();
  });

  it("resizes the pod at once and the headless terminal in order, clamping sizes", async () => {
    const fake = fakePod();
    const stream = new PodStream(
      fake.pod,
      () => 1,
      0,
      () => {},
    );
    const sizes: Array<[number, number]> = [];
    stream.onResize((c, r) => sizes.push([c, r]));
    stream.resize(90, 20);
    stream.resize(100_000, 1);
    await until(() => sizes.length >= 2);
    expect(fake.sizes).toEqual([
      [120, 32],
      [90, 20],
      [500, 5],
    ]);
    expect(sizes).toEqual([
      [90, 20],
      [500, 5],
    ]);
    expect(clampSize(Number.NaN, 40)).toEqual({ cols: 120, rows: 40 });
    stream.dispose();
  });

  it("finishes with the last screen and reports the pod's exit", async () => {
    const fake = fakePod();
    const reasons: string[] = [];
    const stream = new PodStream(
      fake.pod,
      () => 1,
      0,
      (r) => reasons.push(r),
    );
    fake.emit("last words\r\n");
    fake.exit("its shell exited (code 0)");
    expect(reasons).toEqual(["its shell exited (code 0)"]);
    expect(await stream.tail(5)).toBe("");
    const screen = await new Promise<{ data: string }>((resolve) => stream.finish(resolve));
    expect(screen.data).toContain("last words");
  });
});

describe("PodStream of a pod that printed before it was watched", () => {
  it("starts with the pod's earlier output (a warm pod's first prompt), once, then follows it live", async () => {
    const fake = fakePod();
    fake.emit("\u001b]6973;E;0\u0007~ $ ");
    let seq = 0;
    const stream = new PodStream(
      fake.pod,
      () => ++seq,
      0,
      () => {},
    );
    const got: string[] = [];
    stream.onData((_, d) => got.push(d));
    expect(stream.atPrompt).toBe(true);
    const first = await new Promise<{ data: string; seq: number }>((resolve) => stream.snapshot(resolve));
    expect(first.data).toBe("~ $ ");
    expect(first.seq).toBe(1);
    fake.emit("echo hi\r\n\u001b]6973;S\u0007");
    expect(stream.atPrompt).toBe(false);
    fake.emit("hi\r\n\u001b]6973;E;0\u0007~ $ ");
    const second = await new Promise<{ data: string; seq: number }>((resolve) => stream.snapshot(resolve));
    expect(second.data).toBe("~ $ echo hi\r\nhi\r\n~ $ ");
    expect(got.join("")).toBe("\u001b]6973;E;0\u0007~ $ echo hi\r\n\u001b]6973;S\u0007hi\r\n\u001b]6973;E;0\u0007~ $ ");
    stream.dispose();
  });

  it("does not answer a query in the replayed output again, but answers new ones", async () => {
    const fake = fakePod();
    fake.emit("ab\u001b[6n");
    const stream = new PodStream(
      fake.pod,
      () => 1,
      0,
      () => {},
    );
    const replies: string[] = [];
    stream.onReply((r) => replies.push(r));
    await settle();
    expect(replies).toEqual([]);
    fake.emit("c\u001b[6n");
    await settle();
    expect(replies).toEqual(["\u001b[1;4R"]);
    stream.dispose();
  });
});

describe("PodStream replies", () => {
  it("answers a program's cursor position query like a terminal", async () => {
    const fake = fakePod();
    const stream = new PodStream(
      fake.pod,
      () => 1,
      0,
      () => {},
    );
    const replies: string[] = [];
    stream.onReply((r) => replies.push(r));
    fake.emit("ab\u001b[6n");
    await settle();
    expect(replies).toEqual(["\u001b[1;3R"]);
    stream.dispose();
  });
});
