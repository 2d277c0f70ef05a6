// The client->server RFB stream cut into messages: every type noVNC sends,
// however the websocket frames split them, what a viewer's input becomes
// (nothing), and streams that cannot be framed.
import { describe, expect, it } from "vitest";
import {
  ClientMessageFilter,
  MAX_CUT_TEXT,
  RfbProtocolError,
  frameClientMessage,
  viewOnlyGate,
  type ClientMessageType,
} from "./client-messages";

const u16 = (n: number) => [n >> 8, n & 0xff];
const u32 = (n: number) => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];

// One of each, built the way noVNC's RFB.messages builds them.
const M = {
  setPixelFormat: Buffer.from([0, 0, 0, 0, 32, 24, 0, 1, ...u16(255), ...u16(255), ...u16(255), 0, 8, 16, 0, 0, 0]),
  setEncodings: Buffer.from([2, 0, ...u16(3), ...u32(7), ...u32(0), ...u32(-223 >>> 0)]),
  fbUpdateRequest: Buffer.from([3, 1, ...u16(0), ...u16(0), ...u16(1280), ...u16(800)]),
  keyDown: Buffer.from([4, 1, 0, 0, ...u32(0x61)]),
  keyUp: Buffer.from([4, 0, 0, 0, ...u32(0x61)]),
  pointer: Buffer.from([5, 1, ...u16(300), ...u16(200)]),
  extendedPointer: Buffer.from([5, 0x81, ...u16(300), ...u16(200), 1]),
  cutText: Buffer.from([6, 0, 0, 0, ...u32(5), ...Buffer.from("hello")]),
  extendedCutText: Buffer.from([6, 0, 0, 0, ...u32(-4 >>> 0), 0x10, 0, 0, 1]),
  continuousUpdates: Buffer.from([150, 1, ...u16(0), ...u16(0), ...u16(1280), ...u16(800)]),
  fence: Buffer.from([248, 0, 0, 0, ...u32(0x80000003), 3, 1, 2, 3]),
  xvp: Buffer.from([250, 0, 1, 2]),
  setDesktopSize: Buffer.from([
    251,
    0,
    ...u16(1024),
    ...u16(768),
    1,
    0,
    ...u32(0),
    ...u16(0),
    ...u16(0),
    ...u16(1024),
    ...u16(768),
    ...u32(0),
  ]),
  qemuKey: Buffer.from([255, 0, ...u16(1), ...u32(0x61), ...u32(0x1e)]),
  qemuAudioEnable: Buffer.from([255, 1, ...u16(0)]),
  qemuAudioFormat: Buffer.from([255, 1, ...u16(2), 3, 2, ...u32(44100)]),
};

const TYPES: Record<keyof typeof M, ClientMessageType> = {
  setPixelFormat: "SetPixelFormat",
  setEncodings: "SetEncodings",
  fbUpdateRequest: "FramebufferUpdateRequest",
  keyDown: "KeyEvent",
  keyUp: "KeyEvent",
  pointer: "PointerEvent",
  extendedPointer: "PointerEvent",
  cutText: "ClientCutText",
  extendedCutText: "ClientCutText",
  continuousUpdates: "EnableContinuousUpdates",
  fence: "Fence",
  xvp: "Xvp",
  setDesktopSize: "SetDesktopSize",
  qemuKey: "QemuKeyEvent",
  qemuAudioEnable: "QemuAudio",
  qemuAudioFormat: "QemuAudio",
};

const ALL = Object.keys(M) as Array<keyof typeof M>;
const stream = Buffer.concat(ALL.map((k) => M[k]));

/** Runs `chunks` through a filter; returns what was passed on and each message's type as seen by the gate. */
function run(chunks: Buffer[], controlling: () => boolean = () => true) {
  const seen: Array<[ClientMessageType, string]> = [];
  const gate = viewOnlyGate(controlling);
  const filter = new ClientMessageFilter((t, b) => (seen.push([t, b.toString("hex")]), gate(t, b)));
  const out = Buffer.concat(chunks.flatMap((c) => filter.push(c)));
  return { out, seen, filter };
}

/** Deterministic "random" split points. */
function splits(buf: Buffer, seed: number): Buffer[] {
  const out: Buffer[] = [];
  let x = seed;
  for (let i = 0; i < buf.length;) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    const n = 1 + (x % 13);
    out.push(buf.subarray(i, i + n));
    i += n;
  }
  return out;
}

describe("frameClientMessage", () => {
  it("knows the length of every message noVNC sends", () => {
    for (const k of ALL) expect(frameClientMessage(M[k]), k).toMatchObject({ type: TYPES[k], length: M[k].length });
  });

  it("asks for more bytes when the length is not known yet", () => {
    expect(frameClientMessage(Buffer.from([2, 0, 0]))).toBeNull();
    expect(frameClientMessage(Buffer.from([5]))).toBeNull();
    expect(frameClientMessage(M.cutText.subarray(0, 7))).toBeNull();
    expect(frameClientMessage(M.fence.subarray(0, 8))).toBeNull();
    expect(frameClientMessage(M.setDesktopSize.subarray(0, 7))).toBeNull();
    expect(frameClientMessage(Buffer.from([255]))).toBeNull();
    expect(frameClientMessage(Buffer.from([255, 1, 0]))).toBeNull();
    // Fixed-size messages are known from their first byte.
    expect(frameClientMessage(Buffer.from([4]))).toMatchObject({ type: "KeyEvent", length: 8 });
  });

  it("refuses what it cannot frame, naming it", () => {
    expect(() => frameClientMessage(Buffer.from([7, 0, 0, 0]))).toThrow(new RfbProtocolError("unknown client message type 7"));
    expect(() => frameClientMessage(Buffer.from([1]))).toThrow(/unknown client message type 1/);
    expect(() => frameClientMessage(Buffer.from([255, 9]))).toThrow(/unknown QEMU client message 9/);
    expect(() => frameClientMessage(Buffer.from([248, 0, 0, 0, 0, 0, 0, 0, 65]))).toThrow(/fence payload of 65 bytes/);
    expect(() => frameClientMessage(Buffer.from([6, 0, 0, 0, ...u32(MAX_CUT_TEXT + 1)]))).toThrow(/over the limit/);
    expect(() => frameClientMessage(Buffer.from([6, 0, 0, 0, ...u32(-(MAX_CUT_TEXT + 1) >>> 0)]))).toThrow(/over the limit/);
  });
});

describe("ClientMessageFilter", () => {
  it("passes the controller's stream through unchanged, however it is split, except power operations", () => {
    const expected = Buffer.concat(ALL.filter((k) => k !== "xvp").map((k) => M[k]));
    const types = ALL.map((k) => TYPES[k]);
    for (const chunks of [[stream], [...stream].map((b) => Buffer.from([b])), splits(stream, 1), splits(stream, 7), splits(stream, 42)]) {
      const { out, seen, filter } = run(chunks);
      expect(out.equals(expected)).toBe(true);
      expect(seen.map(([t]) => t)).toEqual(types);
      expect(filter.atBoundary).toBe(true);
    }
  });

  it("drops a viewer's key, pointer, clipboard, desktop size and QEMU key messages whole, and passes the rest", () => {
    const viewing = ALL.filter(
      (k) =>
        !["keyDown", "keyUp", "pointer", "extendedPointer", "cutText", "extendedCutText", "setDesktopSize", "qemuKey", "xvp"].includes(k),
    );
    const expected = Buffer.concat(viewing.map((k) => M[k]));
    for (const chunks of [[stream], [...stream].map((b) => Buffer.from([b])), splits(stream, 3), splits(stream, 99)]) {
      const { out } = run(chunks, () => false);
      expect(out.toString("hex")).toBe(expected.toString("hex"));
    }
    // Nothing of an input message gets out, even when it arrives split around other bytes.
    const { out } = run([M.keyDown.subarray(0, 3), M.keyDown.subarray(3), M.fbUpdateRequest], () => false);
    expect(out).toEqual(M.fbUpdateRequest);
  });

  it("decides per message when it is complete, so control taken or lost mid-stream applies from then on", () => {
    let controlling = false;
    const filter = new ClientMessageFilter(viewOnlyGate(() => controlling));
    expect(Buffer.concat(filter.push(Buffer.concat([M.pointer, M.keyDown.subarray(0, 2)])))).toEqual(Buffer.alloc(0));
    controlling = true;
    expect(Buffer.concat(filter.push(Buffer.concat([M.keyDown.subarray(2), M.keyUp, M.pointer.subarray(0, 3)])))).toEqual(
      Buffer.concat([M.keyDown, M.keyUp]),
    );
    controlling = false;
    expect(filter.push(M.pointer.subarray(3))).toEqual([]);
  });

  it("streams large clipboard text in pieces and never holds it; a viewer's is skipped in full", () => {
    const text = Buffer.alloc(3 * 1024 * 1024, 0x41);
    const message = Buffer.concat([Buffer.from([6, 0, 0, 0, ...u32(text.length)]), text]);
    const pieces = [
      message.subarray(0, 5),
      message.subarray(5, 64 * 1024),
      message.subarray(64 * 1024, 2_000_000),
      Buffer.concat([message.subarray(2_000_000), M.keyDown]),
    ];
    const sizes: number[] = [];
    const filter = new ClientMessageFilter(viewOnlyGate(() => true));
    const out: Buffer[] = [];
    for (const p of pieces) {
      const got = filter.push(p);
      sizes.push(got.reduce((n, b) => n + b.length, 0));
      out.push(...got);
    }
    expect(Buffer.concat(out).equals(Buffer.concat([message, M.keyDown]))).toBe(true);
    // Passed on as it came, not at the end.
    expect(sizes[1]).toBe(64 * 1024);

    const skipped = run(pieces, () => false);
    expect(skipped.out.length).toBe(0);
    expect(skipped.filter.atBoundary).toBe(true);
  });

  it("keeps an unfinished message for the next frame and reports it is mid-message", () => {
    const filter = new ClientMessageFilter(() => true);
    expect(filter.push(M.setEncodings.subarray(0, 6))).toEqual([]);
    expect(filter.atBoundary).toBe(false);
    expect(Buffer.concat(filter.push(M.setEncodings.subarray(6)))).toEqual(M.setEncodings);
    expect(filter.atBoundary).toBe(true);
  });

  it("throws on an unknown type, having framed the messages before it correctly", () => {
    const seen: ClientMessageType[] = [];
    const filter = new ClientMessageFilter((t) => (seen.push(t), true));
    expect(() => filter.push(Buffer.concat([M.fbUpdateRequest, M.keyDown.subarray(0, 4)]))).not.toThrow();
    expect(() => filter.push(Buffer.concat([M.keyDown.subarray(4), Buffer.from([9, 9, 9])]))).toThrow(RfbProtocolError);
    expect(seen).toEqual(["FramebufferUpdateRequest", "KeyEvent"]);
  });

  it("reports each passed message to onPassed, and never a dropped one", () => {
    const passed: string[] = [];
    let controlling = false;
    const filter = new ClientMessageFilter(
      viewOnlyGate(
        () => controlling,
        (t, b) => (passed.push(`${t}:${b.length}`), true),
      ),
    );
    filter.push(Buffer.concat([M.keyDown, M.fbUpdateRequest, M.xvp]));
    controlling = true;
    filter.push(Buffer.concat([M.keyDown, M.xvp]));
    expect(passed).toEqual(["FramebufferUpdateRequest:10", "KeyEvent:8"]);
  });
});
