// Attack suite: a secret put together on the screen from pieces (cursor moves
// back, up, inserted characters, tabs, colours, reads split in two) never
// reaches a watcher: not as a terminal draws the messages they get, not as
// the bytes of those messages (e.g. `printf "\e[12G%s\r%s\n" "${T:11}" "${T:0:11}"`
// joined behind a cover drawn afterwards), nor in a late watcher's snapshot.
import * as headless from "@xterm/headless";
import { describe, expect, it } from "vitest";
import { PodStream } from "@/server/realtime";
import { fakeTerminalPod } from "../helpers/fake-pod";

const Terminal = ((headless as unknown as { Terminal?: unknown }).Terminal ??
  (headless as unknown as { default: { Terminal: unknown } }).default.Terminal) as typeof headless.Terminal;

const T = "dpl-7Hq2zX9vLm4K-s3cr3t-0042";
const A = T.slice(0, 11);
const B = T.slice(11);

/** Each trick: the reads the pod gives, in order. */
const TRICKS: Array<[string, string[]]> = [
  ["second half first, first half put before it with CHA and CR", [`\u001b[12G${B}\r${A}\r\n`]],
  ["the same in two reads", [`\u001b[12G${B}`, `\r${A}\r\n`]],
  ["first half, then the second drawn after moving up a line", [`${A}\r\nother text\r\n`, `\u001b[2A\u001b[12G${B}\u001b[2B\r\n`]],
  ["characters inserted before the second half", [`${B}\r\u001b[11@${A}\r\n`]],
  ["a tab to column 9 and the start written over", [`\t${T.slice(8)}\r${T.slice(0, 8)}\r\n`]],
  ["each half in its own colour", [`\u001b[12G\u001b[31m${B}\r\u001b[32m${A}\u001b[0m\r\n`]],
  ["put together and scrolled away in the same read", [`\u001b[12G${B}\r${A}${"\r\n".repeat(60)}done\r\n`]],
  ["an overwritten placeholder", [`${A}XXXXXXXXXXXXXXXXX\r\u001b[11C${B}\r\n`]],
  // Reads of plain text (no control sequence) are checked from the cursor's line on.
  ["the halves in two plain reads", [`x ${A}`, `${B}\r\n`]],
  ["the halves in plain reads across the end of a row", [`${"w".repeat(120 - 11)}${A}`, `${B}\r\n`]],
  ["plain reads on a line the cursor went back up to", [`${A}\r\nother\r\n`, `\u001b[2A\u001b[12G`, `${B}`, `\r\n\r\n`]],
  ["plain reads in a scroll region", [`\u001b[2;20r\u001b[20;1H${"\r\n".repeat(3)}${A}`, `${B}\r\n`]],
];

async function render(data: string): Promise<string> {
  const term = new Terminal({ cols: 120, rows: 32, scrollback: 5000, allowProposedApi: true });
  await new Promise<void>((r) => term.write(data, r));
  const b = term.buffer.active;
  let text = "";
  for (let y = 0; y < b.length; y++) {
    const line = b.getLine(y);
    text += (line?.isWrapped ? "" : "\n") + (line?.translateToString(true) ?? "");
  }
  term.dispose();
  return text;
}

describe("a secret put together on the terminal", () => {
  for (const [name, reads] of TRICKS) {
    it(`never reaches a watcher: ${name}`, async () => {
      const fake = fakeTerminalPod({ secrets: { T } });
      let seq = 0;
      const stream = new PodStream(
        fake.pod,
        () => ++seq,
        0,
        () => {},
      );
      const messages: string[] = [];
      stream.onData((_s, d) => messages.push(d));
      for (const read of reads) {
        fake.emit(read);
        // Each read parsed on its own, as reads a moment apart are.
        await new Promise((r) => stream.snapshot(r));
      }
      const snapshot = await new Promise<string>((r) => stream.snapshot((s) => r(s.data)));
      const bytes = messages.join("");
      const drawn = await render(bytes);
      expect(drawn).not.toContain(T);
      expect(drawn).toContain("[secret:T]");
      // The bytes themselves never carry both parts of it, wherever it is cut (a reader of the socket joins them without a terminal).
      for (let cut = 4; cut <= T.length - 4; cut++)
        expect(bytes.includes(T.slice(0, cut)) && bytes.includes(T.slice(cut)), `cut at ${cut}`).toBe(false);
      expect(await render(snapshot)).not.toContain(T);
      stream.dispose();
    });
  }
});
