// The allow-list of private webhook receivers: an entry names a host and a
// port ("hooks.internal:8443", "10.0.4.12:9000", "[fd00::5]:8080"); an entry
// without a port allows the scheme's default port only (443 for https://, 80
// for http://). Allowing a host never opens every service on it
// (docs/security.md#channels-that-reach-in-and-out).
import net from "node:net";
import { z } from "zod";

export interface AllowedHost {
  host: string;
  /** null: the default port of the URL's scheme. */
  port: number | null;
}

const HOST = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/;

/** An entry as written, lower-cased, or why it is not one. */
export function parseAllowedHost(raw: string): AllowedHost | string {
  const text = raw.trim().toLowerCase();
  let host: string;
  let port: string | null = null;
  const bracketed = /^\[([0-9a-f:.]+)\](?::(\d+))?$/.exec(text);
  if (bracketed) {
    host = bracketed[1];
    port = bracketed[2] ?? null;
    if (!net.isIPv6(host)) return `${raw}: an address in brackets is an IPv6 address`;
  } else if (net.isIPv6(text)) {
    host = text;
  } else {
    const colon = text.lastIndexOf(":");
    host = colon < 0 ? text : text.slice(0, colon);
    port = colon < 0 ? null : text.slice(colon + 1);
    if (!net.isIPv4(host) && !HOST.test(host))
      return `${raw}: a host name, an address, or either with :port — nothing else (write an IPv6 address with a port as [fd00::5]:8080)`;
  }
  if (port !== null && (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535))
    return `${raw}: the port is a number from 1 to 65535`;
  return { host, port: port === null ? null : Number(port) };
}

/** The entry written back: host, host:port, or [v6]:port. */
export function formatAllowedHost(h: AllowedHost): string {
  if (h.port === null) return h.host;
  return `${net.isIPv6(h.host) ? `[${h.host}]` : h.host}:${h.port}`;
}

export const AllowHostsInput = z
  .array(
    z
      .string()
      .trim()
      .min(1)
      .max(262)
      .superRefine((s, ctx) => {
        const parsed = parseAllowedHost(s);
        if (typeof parsed === "string") ctx.addIssue({ code: "custom", message: parsed });
      })
      .transform((s) => formatAllowedHost(parseAllowedHost(s) as AllowedHost)),
  )
  .max(50);

export const defaultPort = (url: URL): number => (url.protocol === "https:" ? 443 : 80);

/** Is this URL's host and port on the list? */
export function allowedTarget(url: URL, entries: readonly string[]): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const port = url.port ? Number(url.port) : defaultPort(url);
  return entries.some((e) => {
    const parsed = parseAllowedHost(e);
    return typeof parsed !== "string" && parsed.host === host && (parsed.port ?? defaultPort(url)) === port;
  });
}

/** The host is on the list, for another port: what the refusal tells the admin to add. */
export function allowedOnOtherPort(url: URL, entries: readonly string[]): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const listed = entries.some((e) => {
    const parsed = parseAllowedHost(e);
    return typeof parsed !== "string" && parsed.host === host;
  });
  if (!listed) return null;
  return formatAllowedHost({ host, port: url.port ? Number(url.port) : defaultPort(url) });
}
