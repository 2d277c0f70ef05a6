// The OTLP export headers usually carry a collector's credentials, so their
// values are secrets (docs/traces-and-costs.md#settings--telemetry): sealed at
// rest with the secrets keyring, shown masked, and kept when an admin saves the
// form without retyping them, as provider API keys are.
import { DomainError } from "@/server/errors";
import { z } from "zod";
import { mask, openValue, sealValue, type SecretKeyring } from "@/server/secrets";

/** An HTTP header name (an RFC 9110 token). */
export const OtlpHeaderName = z
  .string()
  .trim()
  .min(1, "a header name is required")
  .max(200, "a header name is at most 200 characters")
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, "a header name is letters, digits and - _ . ! # $ % & ' * + ^ ` | ~ only");

// Not trimmed: a credential is sent exactly as given. Line breaks would split the request.
const OtlpHeaderValue = z
  .string()
  .min(1, "a header value is required (or null to keep the saved one)")
  .max(4000, "a header value is at most 4000 characters")
  .refine((v) => !/[\r\n\0]/.test(v), "a header value has no line breaks or NUL characters");

/** Headers as a form or API sends them: a value sets or replaces one, null keeps the saved value, a header left out is removed. */
export const OtlpHeadersInput = z.record(OtlpHeaderName, OtlpHeaderValue.nullable()).default({});
export type OtlpHeadersInput = z.input<typeof OtlpHeadersInput>;

/** Headers as the Setting row holds them: `sealed` (current), `clear` only in rows written before values were sealed. */
export interface StoredOtlpHeaders {
  sealed: Record<string, string>;
  clear: Record<string, string>;
}

export interface OtlpHeaderView {
  name: string;
  masked: string;
}

/** A bad header in a save or a test: the caller's mistake, a 400. */
export class OtlpSettingError extends DomainError {
  constructor(message: string) {
    super("INVALID_INPUT", message);
    this.name = "OtlpSettingError";
  }
}

/** Where a header's sealed value lives; bound to the ciphertext. */
const place = (name: string) => `setting/telemetry.otlp/header/${name.toLowerCase()}`;

function openOne(keyring: SecretKeyring | undefined, name: string, sealed: string): string {
  if (!keyring) throw new OtlpSettingError("The OTLP headers are sealed and this server has no secrets key to open them");
  return openValue(keyring, place(name), sealed);
}

/**
 * Every stored header in clear, for the exporter only. A value that does not
 * open (another key file) is left out and reported, never guessed.
 */
export function openHeaders(
  stored: StoredOtlpHeaders,
  keyring: SecretKeyring | undefined,
  onUnreadable?: (name: string, err: Error) => void,
): Record<string, string> {
  const out: Record<string, string> = { ...stored.clear };
  for (const [name, sealed] of Object.entries(stored.sealed)) {
    try {
      out[name] = openOne(keyring, name, sealed);
    } catch (err) {
      onUnreadable?.(name, err as Error);
    }
  }
  return out;
}

/** Names and masked values, for an admin's page or the API. */
export function headerViews(stored: StoredOtlpHeaders, keyring: SecretKeyring | undefined): OtlpHeaderView[] {
  const names = [...new Set([...Object.keys(stored.clear), ...Object.keys(stored.sealed)])];
  return names.map((name) => {
    let value: string;
    try {
      value = name in stored.sealed ? openOne(keyring, name, stored.sealed[name]) : stored.clear[name];
    } catch {
      value = "unreadable";
    }
    return { name, masked: mask(value) };
  });
}

/** The headers to use in clear: given values, and the saved value of each header sent as null. */
export function resolveHeaders(
  input: Record<string, string | null>,
  stored: StoredOtlpHeaders,
  keyring: SecretKeyring | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(input)) {
    if (value !== null) {
      out[name] = value;
      continue;
    }
    if (name in stored.sealed) out[name] = openOne(keyring, name, stored.sealed[name]);
    else if (name in stored.clear) out[name] = stored.clear[name];
    else throw new OtlpSettingError(`The header "${name}" has no saved value to keep; type its value`);
  }
  return out;
}

/** Seals every value for the Setting row. */
export function sealHeaders(headers: Record<string, string>, keyring: SecretKeyring | undefined): Record<string, string> {
  if (Object.keys(headers).length > 0 && !keyring)
    throw new OtlpSettingError("This server has no secrets key to seal the OTLP headers with");
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, sealValue(keyring!, place(name), value)]));
}
