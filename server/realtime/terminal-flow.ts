// Flow control for one client watching one run's terminal: output is sent
// while the client has acknowledged all but ~1 MiB of it. Past that the
// client is "behind" and gets nothing (the server's headless terminal still
// gets everything); once its acks bring it under ~256 KiB it is sent a fresh
// snapshot and follows live again. Memory per client stays bounded whatever
// a command prints, and a slow browser is never flooded.

export const HIGH_WATER = 1024 * 1024;
export const LOW_WATER = 256 * 1024;

export class TerminalFlow {
  private readonly inflight: Array<{ seq: number; size: number }> = [];
  private unackedBytes = 0;
  private behindFlag = false;

  constructor(
    private readonly high = HIGH_WATER,
    private readonly low = LOW_WATER,
  ) {}

  get unacked() {
    return this.unackedBytes;
  }

  get behind() {
    return this.behindFlag;
  }

  /** True when a chunk may be sent now; false drops it for this client and marks it behind. */
  offer(seq: number, size: number): boolean {
    if (this.behindFlag) return false;
    if (this.unackedBytes >= this.high) {
      this.behindFlag = true;
      return false;
    }
    this.inflight.push({ seq, size });
    this.unackedBytes += size;
    return true;
  }

  /**
   * The client has written everything up to `seq`. Returns true when a client
   * that was behind has caught up and needs a snapshot.
   */
  ack(seq: number): boolean {
    let n = 0;
    while (n < this.inflight.length && this.inflight[n].seq <= seq) {
      this.unackedBytes -= this.inflight[n].size;
      n++;
    }
    if (n) this.inflight.splice(0, n);
    return this.behindFlag && this.unackedBytes < this.low;
  }

  /** A snapshot went out: live data follows it. What is still in flight will be acked as usual. */
  caughtUp() {
    this.behindFlag = false;
  }
}
