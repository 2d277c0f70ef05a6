// An RFB client over Rein's VNC websocket, as noVNC is one: the handshake
// with security None, raw pixels only, and a round trip (a 1x1 update
// request answered) that proves the server has read every message sent
// before it on this connection.
import WebSocket from "ws";

export interface Closed {
  code: number;
  reason: string;
}

export class WsVncClient {
  private buffer = Buffer.alloc(0);
  private waiting: { n: number; resolve(b: Buffer): void; reject(e: Error): void } | null = null;
  private ended: Error | null = null;
  readonly closed: Promise<Closed>;
  width = 0;
  height = 0;
  name = "";

  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, data]);
      this.pump();
    });
    this.closed = new Promise((resolve) =>
      ws.on("close", (code, reason) => {
        this.ended = new Error(`the connection closed (${code} ${reason.toString()})`);
        this.pump();
        resolve({ code, reason: reason.toString() });
      }),
    );
    ws.on("error", () => {});
  }

  /** Opens the websocket; resolves once it is open (the RFB handshake is `handshake()`). */
  static open(url: string, opts: { headers?: Record<string, string>; protocols?: string[] } = {}): Promise<WsVncClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, opts.protocols ?? ["binary"], { headers: opts.headers });
      const client = new WsVncClient(ws);
      ws.once("open", () => resolve(client));
      ws.once("unexpected-response", (_req, res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c.toString()));
        res.on("end", () => reject(Object.assign(new Error(`refused: ${res.statusCode} ${body}`), { status: res.statusCode, body })));
      });
      ws.once("error", (err) => reject(err));
    });
  }

  static async connect(url: string, opts: { headers?: Record<string, string>; protocols?: string[] } = {}): Promise<WsVncClient> {
    const client = await WsVncClient.open(url, opts);
    await client.handshake();
    return client;
  }

  private pump() {
    const w = this.waiting;
    if (!w) return;
    if (this.buffer.length >= w.n) {
      this.waiting = null;
      const out = this.buffer.subarray(0, w.n);
      this.buffer = this.buffer.subarray(w.n);
      w.resolve(out);
    } else if (this.ended) {
      this.waiting = null;
      w.reject(this.ended);
    }
  }

  read(n: number): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.waiting = { n, resolve, reject };
      this.pump();
    });
  }

  send(bytes: Buffer | number[]) {
    this.ws.send(Buffer.from(bytes as Buffer));
  }

  async handshake() {
    const version = (await this.read(12)).toString("latin1");
    if (version !== "RFB 003.008\n") throw new Error(`unexpected server version ${JSON.stringify(version)}`);
    this.send(Buffer.from("RFB 003.008\n", "latin1"));
    const count = (await this.read(1))[0];
    const types = [...(await this.read(count))];
    if (types.join() !== "1") throw new Error(`expected only security None, got ${types.join(", ")}`);
    this.send([1]);
    const result = (await this.read(4)).readUInt32BE(0);
    if (result !== 0) throw new Error(`security result ${result}`);
    this.send([0]); // ClientInit, not shared: the proxy must share anyway
    const head = await this.read(24);
    this.width = head.readUInt16BE(0);
    this.height = head.readUInt16BE(2);
    this.name = (await this.read(head.readUInt32BE(20))).toString("utf8");
    // 32 bits per pixel, raw encoding only: updates are easy to skip.
    this.send([0, 0, 0, 0, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0]);
    this.send([2, 0, 0, 1, 0, 0, 0, 0]);
  }

  static pointerEvent(x: number, y: number, buttons = 0) {
    return Buffer.from([5, buttons, x >> 8, x & 0xff, y >> 8, y & 0xff]);
  }

  static keyEvent(keysym: number, down: boolean) {
    return Buffer.from([4, down ? 1 : 0, 0, 0, (keysym >>> 24) & 0xff, (keysym >>> 16) & 0xff, (keysym >>> 8) & 0xff, keysym & 0xff]);
  }

  static updateRequest(x = 0, y = 0, w = 1, h = 1) {
    return Buffer.from([3, 0, x >> 8, x & 0xff, y >> 8, y & 0xff, w >> 8, w & 0xff, h >> 8, h & 0xff]);
  }

  /**
   * Asks for a 1x1 update and reads server messages until it comes: the
   * server has then handled every message this connection sent before.
   */
  async roundTrip() {
    this.send(WsVncClient.updateRequest());
    for (;;) {
      const type = (await this.read(1))[0];
      if (type === 0) {
        await this.read(1);
        const rects = (await this.read(2)).readUInt16BE(0);
        for (let i = 0; i < rects; i++) {
          const r = await this.read(12);
          const [w, h, encoding] = [r.readUInt16BE(4), r.readUInt16BE(6), r.readInt32BE(8)];
          if (encoding !== 0) throw new Error(`unexpected encoding ${encoding}`);
          await this.read(w * h * 4);
        }
        return;
      }
      if (type === 2) continue; // Bell
      if (type === 3) {
        await this.read(3);
        await this.read((await this.read(4)).readUInt32BE(0));
        continue;
      }
      throw new Error(`unexpected server message ${type}`);
    }
  }

  close() {
    this.ws.close();
  }
}
