// A budget as an admin types it (Settings › Budgets, the New run dialog):
// blank means no budget; otherwise a positive amount in USD up to the server's
// limit. The server checks again (server/limits/settings.ts); its issues are
// shown under the same field.

import { MAX_BUDGET_USD } from "@/lib/limits";

export { MAX_BUDGET_USD };

const AMOUNT_RE = /^(\d+(\.\d*)?|\.\d+)$/;

export type BudgetParse = { ok: true; value: number | null } | { ok: false; error: string };

/** "12.50" -> 12.5, "$1,000" -> 1000, "" -> null (no budget); anything else a clear error. */
export function parseBudget(text: string, opts: { required?: boolean } = {}): BudgetParse {
  const cleaned = text.trim().replace(/^\$/, "").replace(/,/g, "").trim();
  if (!cleaned) return opts.required ? { ok: false, error: "is required" } : { ok: true, value: null };
  if (cleaned.startsWith("-")) return { ok: false, error: "must be more than 0" };
  if (!AMOUNT_RE.test(cleaned)) return { ok: false, error: "must be an amount in USD, e.g. 25 or 0.50" };
  const value = Number(cleaned);
  if (value <= 0) return { ok: false, error: "must be more than 0 (leave it empty for no budget)" };
  if (value > MAX_BUDGET_USD) return { ok: false, error: `is at most ${MAX_BUDGET_USD.toLocaleString("en-US")} USD` };
  return { ok: true, value };
}

/** The text field's value for a saved budget: "" for none. */
export function budgetText(value: number | null): string {
  return value === null ? "" : String(value);
}

/** The server's message about `field` (its zod issues), if any. */
export function fieldIssue(issues: Array<{ path: string; message: string }> | undefined, field: string): string | null {
  return issues?.find((i) => i.path === field)?.message ?? null;
}

/** Spend against a budget as a share of it, 0..1 for the bar (over budget stays at 1). */
export function budgetShare(spent: number, budget: number | null): number | null {
  if (budget === null || budget <= 0) return null;
  return Math.min(1, Math.max(0, spent / budget));
}
