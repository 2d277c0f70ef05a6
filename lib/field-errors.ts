// The server's refusals shown under the field they are about: zod issues come
// with a path ("baseUrl", "prices.inputPerMTok"); the catalog's own checks
// start their message with the field ("baseUrl: must be …").
import { TRPCClientError } from "@trpc/client";
import { errorMessage } from "@/lib/errors";

export type Issues = Array<{ path: string; message: string }>;

export interface FieldErrors<F extends string> {
  fields: Partial<Record<F, string>>;
  /** What belongs to no field of the form, in one line; null when everything found its field. */
  other: string | null;
}

export function issuesOf(err: unknown): Issues | undefined {
  return err instanceof TRPCClientError ? (err.data as { issues?: Issues } | undefined)?.issues : undefined;
}

/** `alias` renames server paths to form fields (e.g. "prices.inputPerMTok" → "inputPerMTok"). */
export function fieldErrors<F extends string>(
  issues: Issues | undefined,
  message: string,
  fields: readonly F[],
  alias: Record<string, F> = {},
): FieldErrors<F> {
  const known = (path: string): F | null => alias[path] ?? ((fields as readonly string[]).includes(path) ? (path as F) : null);
  const out: Partial<Record<F, string>> = {};
  if (!issues?.length) {
    const m = /^([A-Za-z][A-Za-z.]*): (.+)$/s.exec(message);
    const field = m ? known(m[1]) : null;
    if (field && m) return { fields: { [field]: m[2] } as Partial<Record<F, string>>, other: null };
    return { fields: out, other: message };
  }
  const other: string[] = [];
  for (const i of issues) {
    const field = known(i.path);
    if (field) out[field] ??= i.message;
    else other.push(i.path ? `${i.path}: ${i.message}` : i.message);
  }
  return { fields: out, other: other.length ? other.join("; ") : null };
}

/** fieldErrors for a failed mutation. */
export function errorsOf<F extends string>(err: unknown, fields: readonly F[], alias?: Record<string, F>): FieldErrors<F> {
  return fieldErrors(issuesOf(err), errorMessage(err), fields, alias);
}
