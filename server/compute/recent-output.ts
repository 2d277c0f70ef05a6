// What a pod printed most recently, raw. A pod prints its first prompt while
// it waits in the warm pool, before any run or watcher is attached; whoever
// subscribes later replays this first, so their screen starts where the
// pod's did instead of in the middle of it.

/** Kept per pod; a terminal's screen and scrollback fit in far less. */
export const RECENT_OUTPUT_CHARS = 256 * 1024;

export class RecentOutput {
  private chunks: string[] = [];
  private chars = 0;
  private trimmed = false;

  constructor(private readonly limit = RECENT_OUTPUT_CHARS) {}

  push(chunk: string) {
    if (!chunk) return;
    this.chunks.push(chunk);
    this.chars += chunk.length;
    // Trimmed in batches, so memory stays under twice the limit without copying on every chunk.
    if (this.chars > this.limit * 2) this.compact();
  }

  private compact() {
    const all = this.chunks.join("");
    if (all.length > this.limit) this.trimmed = true;
    const kept = all.slice(-this.limit);
    this.chunks = [kept];
    this.chars = kept.length;
  }

  /** Everything since the pod started or, past the limit, the latest output from a line start on. */
  text(): string {
    if (this.chars > this.limit) this.compact();
    const all = this.chunks.join("");
    if (!this.trimmed) return all;
    // The first line may start inside an escape sequence; begin at the next one.
    const nl = all.indexOf("\n");
    const rest = nl >= 0 ? all.slice(nl + 1) : all;
    return `\u001b[0m[Rein: earlier output of this terminal was not kept]\r\n${rest}`;
  }
}
