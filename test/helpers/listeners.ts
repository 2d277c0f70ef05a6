// Who listens on a TCP port, read from /proc/net/tcp and tcp6 (no ss/netstat needed).
import fs from "node:fs";
import net from "node:net";

function ipv4(hex: string): string {
  // /proc/net/tcp prints the address as a little-endian 32-bit hex number.
  return [3, 2, 1, 0].map((i) => Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16)).join(".");
}

function ipv6(hex: string): string {
  const words: string[] = [];
  for (let i = 0; i < 32; i += 8) {
    const le = hex.slice(i, i + 8);
    const be = le.slice(6, 8) + le.slice(4, 6) + le.slice(2, 4) + le.slice(0, 2);
    words.push(be.slice(0, 4), be.slice(4, 8));
  }
  return words.map((w) => w.replace(/^0+(?=.)/, "")).join(":");
}

/** The local addresses with a socket listening on `port`, IPv4 and IPv6. */
export function listenersOn(port: number): Array<{ address: string; family: 4 | 6 }> {
  const out: Array<{ address: string; family: 4 | 6 }> = [];
  for (const [file, family] of [
    ["/proc/net/tcp", 4],
    ["/proc/net/tcp6", 6],
  ] as const) {
    let text = "";
    try {
      text = fs.readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 4 || cols[3] !== "0A") continue; // 0A: LISTEN
      const [addr, portHex] = cols[1].split(":");
      if (Number.parseInt(portHex, 16) !== port) continue;
      out.push({ address: family === 4 ? ipv4(addr) : ipv6(addr), family });
    }
  }
  return out;
}

/** Does a server answer on this Unix socket? */
export function unixSocketAnswers(file: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(file);
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.once("error", () => resolve(false));
  });
}
