// The New experiment form's number fields, checked as people type (the
// server checks again and its refusals show under the same fields).

/** A whole number from min to max; blank takes the default. */
export function parseWhole(
  text: string,
  min: number,
  max: number,
  fallback: number,
): { ok: true; value: number } | { ok: false; error: string } {
  const t = text.trim();
  if (!t) return { ok: true, value: fallback };
  if (!/^\d+$/.test(t)) return { ok: false, error: `must be a whole number from ${min} to ${max}` };
  const n = Number(t);
  if (n < min || n > max) return { ok: false, error: `must be from ${min} to ${max}` };
  return { ok: true, value: n };
}
