"use client";
// Checks the policy draft on the server a moment after typing stops (or at
// once on demand): errors block saving; warnings (rules that can never match) do not.
import { useLiveCheck } from "@/lib/use-live-check";
import { trpc } from "@/lib/trpc";
import type { PolicyErrorView } from "./types";
import type { ValidationState } from "./validation-panel";

export function useValidation(draft: string | null) {
  const mutate = trpc.policy.validate.useMutation().mutateAsync;
  const live = useLiveCheck<ValidationState>(
    draft,
    async (source) => {
      const r = await mutate({ source });
      return r.ok ? { status: "ok", ruleCount: r.ruleCount, warnings: r.warnings } : { status: "invalid", errors: r.errors };
    },
    (message) => ({ status: "failed", message }),
  );
  const state: ValidationState = live.current ?? (draft === null ? { status: "idle" } : { status: "checking" });
  // Markers stay on the last known errors while a newer check runs (lines rarely move much).
  const errors: PolicyErrorView[] = live.last?.status === "invalid" ? live.last.errors : [];
  const warnings: PolicyErrorView[] = live.last?.status === "ok" ? live.last.warnings : [];
  return {
    state,
    errors,
    /** Rules that can never match (the policy is still valid). */
    warnings,
    /** True when the draft is known to be invalid. */
    invalid: live.current?.status === "invalid",
    checkNow: live.checkNow,
  };
}
