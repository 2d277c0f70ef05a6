// The tar reader of workspace sync (docs/desktops-and-tiers.md#workspace-sync):
// what follows the end blocks (the rest of tar's last record) is read, so the
// stream ends and the process writing it can close; a stream that goes on
// after the end is let go past a bound.
import { once } from "node:events";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { TAR_END, readTar, tarHeader, tarPadding } from "./tar";

const archive = () => {
  const body = Buffer.from("hello\n");
  return Buffer.concat([
    tarHeader({ path: "a.txt", kind: "file", mode: 0o644, size: body.length, target: "" }),
    body,
    tarPadding(body.length),
  ]);
};

describe("readTar", () => {
  it("reads to the stream's end after the end blocks, so the stream ends (a tar writing it then closes)", async () => {
    const stream = new PassThrough();
    const ended = once(stream, "end");
    stream.write(Buffer.concat([archive(), TAR_END]));
    const names: string[] = [];
    const reading = readTar(stream, async (entry) => void names.push(entry.path));
    // The rest of the record arrives after the reader has seen the end blocks.
    setTimeout(() => stream.end(Buffer.alloc(10240 - 3 * 512 - 1024)), 20);
    await reading;
    expect(names).toEqual(["a.txt"]);
    const outcome = await Promise.race([ended.then(() => "ended"), new Promise((r) => setTimeout(() => r("still open"), 1000))]);
    expect(outcome).toBe("ended");
  });

  it("lets go of a stream that goes on past the end blocks for more than 1 MiB", async () => {
    const stream = new PassThrough();
    stream.write(Buffer.concat([archive(), TAR_END]));
    stream.on("error", () => undefined); // let go of: destroyed mid-stream
    const feeding = setInterval(() => !stream.destroyed && stream.write(Buffer.alloc(64 * 1024)), 1);
    try {
      await readTar(stream, async () => undefined);
      expect(stream.destroyed).toBe(true);
    } finally {
      clearInterval(feeding);
    }
  });
});
