// Showing and hiding secret values: `mask` for display, `redact` for any text
// bound for a trace, the event log, a log line or a model prompt.
import type { NamedSecret } from "./types";

/** "sk-…abcd": a short lowercase prefix and at most the last 4 characters, only for long values. */
export function mask(value: string): string {
  if (value.length < 12) return "••••";
  const prefix = value.length >= 16 ? (value.match(/^[a-z]{2,4}-/)?.[0] ?? "") : "";
  return `${prefix}…${value.slice(-4)}`;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The base64 text of `value` that appears whatever precedes it: for each of
 * the three byte alignments, the characters that encode only the value's bytes.
 */
function base64Cores(value: Buffer, alphabet: "base64" | "base64url"): string[] {
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), value])
      .toString(alphabet)
      .replace(/=+$/, "");
    const start = Math.ceil((offset * 4) / 3);
    const end = Math.floor(((offset + value.length) * 4) / 3);
    if (end - start >= 8) cores.push(encoded.slice(start, end));
  }
  return cores;
}

/** A pattern for a percent-encoded form, matching %2F and %2f alike. */
function percentPattern(encoded: string): string {
  return encoded
    .split(/(%[0-9A-F]{2})/)
    .map((piece, i) => (i % 2 === 1 ? `%(?:${piece.slice(1)}|${piece.slice(1).toLowerCase()})` : escapeRegExp(piece)))
    .join("");
}

/** Every form in which a value may appear in text, as regex sources. */
function forms(value: string): string[] {
  const bytes = Buffer.from(value, "utf8");
  const out = new Set<string>([escapeRegExp(value)]);
  out.add(escapeRegExp(JSON.stringify(value).slice(1, -1)));
  out.add(percentPattern(encodeURIComponent(value)));
  out.add(percentPattern(encodeURIComponent(value).replace(/%20/g, "+")));
  for (const core of [...base64Cores(bytes, "base64"), ...base64Cores(bytes, "base64url")]) out.add(escapeRegExp(core));
  return [...out];
}

/**
 * The texts a value appears as, literally: plain, JSON-escaped, URL-encoded
 * and its base64 cores. A stream that may cut a value in two holds back a
 * tail that could begin one of these (stream.ts).
 */
export function literalForms(value: string): string[] {
  const bytes = Buffer.from(value, "utf8");
  const out = new Set<string>([
    value,
    JSON.stringify(value).slice(1, -1),
    encodeURIComponent(value),
    encodeURIComponent(value).replace(/%20/g, "+"),
  ]);
  for (const core of [...base64Cores(bytes, "base64"), ...base64Cores(bytes, "base64url")]) out.add(core);
  return [...out];
}

/**
 * A function that replaces every value of `secrets` — plain, JSON-escaped,
 * URL-encoded or base64 (standard or URL alphabet, at any alignment) — with
 * [secret:NAME]. Compile once for many texts.
 */
export function redactor(secrets: Iterable<NamedSecret>): (text: string) => string {
  const patterns: Array<{ source: string; name: string }> = [];
  for (const s of secrets) {
    if (!s.value) continue;
    for (const source of forms(s.value)) patterns.push({ source, name: s.name });
  }
  if (patterns.length === 0) return (text) => text;
  // Longest first, one pass: a replacement is never matched again.
  patterns.sort((a, b) => b.source.length - a.source.length);
  const re = new RegExp(patterns.map((p) => `(${p.source})`).join("|"), "g");
  return (text) =>
    text.replace(re, (...groups: unknown[]) => {
      const i = groups.slice(1, patterns.length + 1).findIndex((g) => g !== undefined);
      return `[secret:${patterns[i].name}]`;
    });
}

/** Replaces every secret value in `text` with [secret:NAME] (see `redactor`). */
export function redact(text: string, secrets: Iterable<NamedSecret>): string {
  return redactor(secrets)(text);
}
