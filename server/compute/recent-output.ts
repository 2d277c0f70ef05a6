// What a pod printed most recently, raw. A pod prints its first prompt while
// it waits in the warm pool, before any run or watcher is attached; whoever
// subscribes later replays this first, so their screen starts where the
// pod's did instead of in the middle of it.

/** Kept per pod; a terminal's screen and scrollback fit in far less. */
export const RECENT_OUTPUT_CHARS = 256 * 1024;

export class RecentOutput {
  private chunks: string[] = [];
  /** The oldest chunk still kept; those before it are dropped. */
  private first = 0;
  private chars = 0;
  private trimmed = false;

  constructor(private readonly limit = RECENT_OUTPUT_CHARS) {}

  push(chunk: string) {
    if (!chunk) return;
    this.chunks.push(chunk);
    this.chars += chunk.length;
    // Whole chunks fall off the front while the rest still holds the limit: every output
    // chunk passes here, so nothing is copied (memory stays under the limit and one chunk).
    while (this.chars - this.chunks[this.first].length >= this.limit) {
      this.chars -= this.chunks[this.first].length;
      this.first++;
      this.trimmed = true;
    }
    if (this.first >= 1024) {
      this.chunks = this.chunks.slice(this.first);
      this.first = 0;
    }
  }

  /** Everything since the pod started or, past the limit, the latest output from a line start on. */
  text(): string {
    let all = (this.first ? this.chunks.slice(this.first) : this.chunks).join("");
    if (all.length > this.limit) {
      all = all.slice(-this.limit);
      this.trimmed = true;
    }
    if (!this.trimmed) return all;
    // The first line may start inside an escape sequence; begin at the next one.
    const nl = all.indexOf("\n");
    const rest = nl >= 0 ? all.slice(nl + 1) : all;
    return `\u001b[0m[Rein: earlier output of this terminal was not kept]\r\n${rest}`;
  }
}
