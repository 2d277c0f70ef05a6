"use client";
// Saving a budget: errors from the browser's check or the server's, under the field.
import { TRPCClientError } from "@trpc/client";
import { useState } from "react";
import { errorMessage } from "@/lib/errors";
import { fieldIssue, parseBudget } from "@/lib/budget-draft";
import { trpc } from "@/lib/trpc";

type Issues = Array<{ path: string; message: string }>;

export function serverIssue(err: unknown, field: string): string {
  const issues = err instanceof TRPCClientError ? (err.data as { issues?: Issues } | undefined)?.issues : undefined;
  return fieldIssue(issues, field) ?? errorMessage(err);
}

/** A mutation wrapped with the text field's check; `error` is what to show under the field. */
export function useBudgetSave<T>(mutate: (value: number | null) => Promise<T>) {
  const utils = trpc.useUtils();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [savedAt, setSavedAt] = useState<number | null>(null);
  async function save(text: string) {
    const parsed = parseBudget(text);
    setSavedAt(null);
    if (!parsed.ok) return setError(parsed.error);
    setError(null);
    setBusy(true);
    try {
      await mutate(parsed.value);
      setSavedAt(Date.now());
      await Promise.all([utils.budgets.get.invalidate(), utils.costs.health.invalidate()]);
    } catch (err) {
      setError(serverIssue(err, "budgetUsd"));
    } finally {
      setBusy(false);
    }
  }
  return { save, error, busy, savedAt, clear: () => setError(null) };
}
