// Text as the Files tab handles it: what counts as text, its hash, sizes in messages.
import crypto from "node:crypto";
import { MAX_TEXT_BYTES } from "@/lib/limits";

/** The largest file opened as text, and saved. */
export { MAX_TEXT_BYTES };

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The text of bytes, or null when they are not UTF-8 text (a NUL byte early on, as git decides, or invalid UTF-8). */
export function decodeText(bytes: Uint8Array): string | null {
  if (bytes.subarray(0, 8000).includes(0)) return null;
  try {
    return decoder.decode(bytes);
  } catch {
    return null;
  }
}

export function contentHash(bytes: Uint8Array | string): string {
  return crypto.createHash("sha256").update(bytes).digest("hex");
}

export function formatBytes(n: number): string {
  if (n < 1000) return `${n} bytes`;
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)} kB`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, "")} MB`;
}
