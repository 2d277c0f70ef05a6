import { describe, expect, it } from "vitest";
import type { TerminalPod } from "@/server/compute";
import { PodStream, clampSize } from "./terminal-stream";

/** A pod whose output the test writes. */
function fakePod() {
  const data = new Set<(chunk: string) => void>();
  const exit = new Set<(info: { exitCode: number; reason: string }) => void>();
  const sizes: Array<[number, number]> = [];
  const pod = {
    id: "pod-test",
    sandbox: "none",
    workspaceDir: "",
    startedAt: 0,
    onData: (l: (chunk: string) => void) => (data.add(l), () => data.delete(l)),
    onExit: (l: (info: { exitCode: number; reason: string }) => void) => (exit.add(l), () => exit.delete(l)),
    write() {},
    resize: (cols: number, rows: number) => void sizes.push([cols, rows]),
    exec: async () => ({ exitCode: 0, output: "", truncatedChars: 0 }),
    alive: () => true,
    dispose: async () => {},
  } satisfies TerminalPod;
  return { pod, sizes, emit: (chunk: string) => data.forEach((l) => l(chunk)), exit: (reason: string) => exit.forEach((l) => l({ exitCode: 0, reason })) };
}

const settle = () => new Promise((r) => setTimeout(r, 30));

describe("PodStream", () => {
  it("hands out every chunk in order, numbered, after the headless terminal parsed it", async () => {
    const fake = fakePod();
    let seq = 10;
    const stream = new PodStream(fake.pod, () => ++seq, seq, () => {});
    const got: Array<[number, string]> = [];
    stream.onData((s, d) => got.push([s, d]));
    for (let i = 1; i <= 500; i++) fake.emit(`line ${i}\r\n`);
    await settle();
    expect(got.map(([, d]) => d).join("")).toBe(Array.from({ length: 500 }, (_, i) => `line ${i + 1}\r\n`).join(""));
    expect(got[0][0]).toBe(11);
    got.forEach(([s], i) => i > 0 && expect(s).toBe(got[i - 1][0] + 1));
    stream.dispose();
  });

  it("snapshots exactly what was handed out so far, with scrollback and colours", async () => {
    const fake = fakePod();
    let seq = 0;
    const stream = new PodStream(fake.pod, () => ++seq, 0, () => {});
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
    const stream = new PodStream(fake.pod, () => 1, 0, () => {});
    expect(stream.atPrompt).toBe(true);
    fake.emit("vi x\r\n\u001b]6973;S\u0007");
    expect(stream.atPrompt).toBe(false);
    fake.emit("\u001b]6973;E;0\u0007/workspace $ ");
    expect(stream.atPrompt).toBe(true);
    stream.dispose();
  });

  it("resizes the pod at once and the headless terminal in order, clamping sizes", async () => {
    const fake = fakePod();
    const stream = new PodStream(fake.pod, () => 1, 0, () => {});
    const sizes: Array<[number, number]> = [];
    stream.onResize((c, r) => sizes.push([c, r]));
    stream.resize(90, 20);
    stream.resize(100_000, 1);
    await settle();
    expect(fake.sizes).toEqual([[120, 32], [90, 20], [500, 5]]);
    expect(sizes).toEqual([[90, 20], [500, 5]]);
    expect(clampSize(Number.NaN, 40)).toEqual({ cols: 120, rows: 40 });
    stream.dispose();
  });

  it("finishes with the last screen and reports the pod's exit", async () => {
    const fake = fakePod();
    const reasons: string[] = [];
    const stream = new PodStream(fake.pod, () => 1, 0, (r) => reasons.push(r));
    fake.emit("last words\r\n");
    fake.exit("its shell exited (code 0)");
    expect(reasons).toEqual(["its shell exited (code 0)"]);
    expect(stream.tail(5)).toBe("");
    const screen = await new Promise<{ data: string }>((resolve) => stream.finish(resolve));
    expect(screen.data).toContain("last words");
  });
});

describe("PodStream replies", () => {
  it("answers a program's cursor position query like a terminal", async () => {
    const fake = fakePod();
    const stream = new PodStream(fake.pod, () => 1, 0, () => {});
    const replies: string[] = [];
    stream.onReply((r) => replies.push(r));
    fake.emit("ab\u001b[6n");
    await settle();
    expect(replies).toEqual(["\u001b[1;3R"]);
    stream.dispose();
  });
});
