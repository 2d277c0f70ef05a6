// Where a desktop's browser may connect (docs/security.md#network): anywhere public,
// never the host's loopback or private ranges, link-local (cloud metadata)
// or other reserved addresses, nor any address of this machine's own
// interfaces, unless an allowance names the host (and port, and for plain
// HTTP a path prefix). Rein's own demo site is reached
// through such an allowance. Names are resolved here, and the connection
// goes to the address that was checked, so DNS cannot swap it afterwards.
import dns from "node:dns/promises";
import net from "node:net";
import os from "node:os";

export interface EgressAllowance {
  /** A host name or address, as the browser names it. */
  host: string;
  port?: number;
  /** Plain HTTP only: the path must start with this (Rein's demo site is /demo-site on Rein's own port). */
  pathPrefix?: string;
}

let allowances: EgressAllowance[] = [];

/** The allowances every desktop's browser gets (server.ts adds Rein's demo site). */
export function configureEgress(options: { allow: EgressAllowance[] }): void {
  allowances = [...options.allow];
}

export function egressAllowances(): EgressAllowance[] {
  return allowances;
}

const BLOCKED_V4: Array<[string, number]> = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
];

function v4Number(ip: string): number {
  return ip.split(".").reduce((n, part) => n * 256 + Number(part), 0);
}

function blockedV4(ip: string): boolean {
  const n = v4Number(ip);
  return BLOCKED_V4.some(([base, bits]) => Math.floor(n / 2 ** (32 - bits)) === Math.floor(v4Number(base) / 2 ** (32 - bits)));
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part counts as two), or null. */
function ipv6Groups(ip: string): number[] | null {
  let text = ip;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const n = v4Number(v4[1]);
    text = `${text.slice(0, v4.index)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const missing = text.includes("::") ? 8 - left.length - right.length : 0;
  const all = [...left, ...Array(Math.max(0, missing)).fill("0"), ...right];
  if (all.length !== 8) return null;
  const groups = all.map((g) => parseInt(g || "0", 16));
  return groups.some((g) => Number.isNaN(g)) ? null : groups;
}

/** Loopback, private, link-local, reserved or multicast: not the public internet. */
export function isPrivateAddress(ip: string): boolean {
  if (net.isIPv4(ip)) return blockedV4(ip);
  if (!net.isIPv6(ip)) return true;
  const lower = ip.toLowerCase();
  // IPv4 inside IPv6 (::ffff:a.b.c.d, and the same written in hex, ::ffff:7f00:1, as URLs normalise it; the old ::a.b.c.d form too) is judged as IPv4.
  const groups = ipv6Groups(lower);
  if (groups && groups.slice(0, 5).every((g) => g === 0) && (groups[5] === 0xffff || (groups[5] === 0 && groups[6] !== 0))) {
    return blockedV4([groups[6] >> 8, groups[6] & 255, groups[7] >> 8, groups[7] & 255].join("."));
  }
  if (lower === "::" || lower === "::1") return true;
  const first = parseInt(lower.split(":")[0] || "0", 16);
  // fc00::/7 unique-local, fe80::/10 link-local, ff00::/8 multicast, 64:ff9b::/96 NAT64 and 2001:db8::/32 documentation.
  return (
    (first & 0xfe00) === 0xfc00 ||
    (first & 0xffc0) === 0xfe80 ||
    (first & 0xff00) === 0xff00 ||
    lower.startsWith("64:ff9b:") ||
    lower.startsWith("2001:db8:")
  );
}

/** One spelling per address: IPv4 dotted, IPv4-mapped IPv6 as its IPv4, other IPv6 as eight hex groups. */
function addressKey(ip: string): string | null {
  const bare = ip.replace(/%.*$/, "").toLowerCase();
  if (net.isIPv4(bare)) return bare.split(".").map(Number).join(".");
  const groups = net.isIPv6(bare) ? ipv6Groups(bare) : null;
  if (!groups) return null;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff)
    return [groups[6] >> 8, groups[6] & 255, groups[7] >> 8, groups[7] & 255].join(".");
  return groups.map((g) => g.toString(16)).join(":");
}

/**
 * An address of one of this machine's interfaces (its LAN, public or IPv6
 * addresses, not only loopback), read at each decision so an address the
 * machine gains later counts too (docs/security.md#network).
 */
export function isOwnAddress(ip: string): boolean {
  const key = addressKey(ip);
  if (key === null) return false;
  for (const list of Object.values(os.networkInterfaces())) for (const a of list ?? []) if (addressKey(a.address) === key) return true;
  return false;
}

/** Link-local (cloud metadata lives at 169.254.169.254) or unspecified: reached only through an allowance naming the address itself. */
function linkLocalOrUnspecified(ip: string): boolean {
  const key = addressKey(ip);
  if (key === null) return true;
  if (net.isIPv4(key)) return key.startsWith("169.254.") || key.startsWith("0.");
  return key === "0:0:0:0:0:0:0:0" || (parseInt(key.split(":")[0], 16) & 0xffc0) === 0xfe80;
}

export type EgressDecision = { ok: true; address: string; family: 4 | 6 } | { ok: false; reason: string };

function allowance(host: string, port: number, path: string | null): EgressAllowance | undefined {
  const name = host.toLowerCase().replace(/^\[|\]$/g, "");
  return allowances.find(
    (a) =>
      a.host.toLowerCase() === name &&
      (a.port === undefined || a.port === port) &&
      (a.pathPrefix === undefined ||
        (path !== null && (path === a.pathPrefix || path.startsWith(`${a.pathPrefix}/`) || path.startsWith(`${a.pathPrefix}?`)))),
  );
}

/**
 * May the browser connect to host:port (for plain HTTP, to this path)? The
 * answer carries the address to connect to.
 */
export async function decideEgress(host: string, port: number, path: string | null): Promise<EgressDecision> {
  const name = host.replace(/^\[|\]$/g, "");
  if (!name || port < 1 || port > 65535) return { ok: false, reason: "not a destination" };
  let addresses: Array<{ address: string; family: number }>;
  if (net.isIP(name)) addresses = [{ address: name, family: net.isIPv4(name) ? 4 : 6 }];
  else {
    try {
      addresses = await dns.lookup(name, { all: true });
    } catch {
      return { ok: false, reason: `${name} does not resolve` };
    }
  }
  if (addresses.length === 0) return { ok: false, reason: `${name} does not resolve` };
  const allowed = allowance(name, port, path);
  // Every address a name resolves to must be public and none of this machine's, unless the name is allowed as it is.
  if (!allowed && addresses.some((a) => isPrivateAddress(a.address) || isOwnAddress(a.address))) {
    return { ok: false, reason: `${name} is an address of this machine or a private network; a desktop's browser may not reach it` };
  }
  // An allowed name whose DNS now says link-local (cloud metadata) or 0.0.0.0 is refused: only an allowance of that address opens it.
  if (allowed && !net.isIP(name) && addresses.some((a) => linkLocalOrUnspecified(a.address))) {
    return { ok: false, reason: `${name} resolves to a link-local or unspecified address; a desktop's browser may not reach it` };
  }
  const first = addresses[0];
  return { ok: true, address: first.address, family: first.family === 6 ? 6 : 4 };
}
