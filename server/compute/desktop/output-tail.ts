// What a program wrote to stderr, for the message when it fails: its first
// lines (where x11vnc says what went wrong before its long advice) and its
// last ones. Reading the pipe also keeps a chatty program (Chromium) from
// blocking on it.
export class OutputTail {
  private head = "";
  private tail = "";

  constructor(
    stream: NodeJS.ReadableStream | null | undefined,
    private readonly headChars = 600,
    private readonly tailChars = 1400,
  ) {
    stream?.on("data", (chunk: Buffer) => this.push(chunk.toString("utf8")));
  }

  push(text: string) {
    if (this.head.length < this.headChars) {
      const room = this.headChars - this.head.length;
      this.head += text.slice(0, room);
      text = text.slice(room);
    }
    this.tail += text;
    if (this.tail.length > this.tailChars * 2) this.tail = this.tail.slice(-this.tailChars);
  }

  text(): string {
    const tail = this.tail.slice(-this.tailChars);
    const skipped = this.tail.length > tail.length;
    return `${this.head}${skipped ? "\n[...]\n" : ""}${tail}`.trim();
  }
}
