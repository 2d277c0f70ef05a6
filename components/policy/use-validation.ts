"use client";
// Checks the draft on the server a moment after typing stops (or at once on
// demand); results for an older text are never shown as the current ones.
import { useCallback, useEffect, useRef, useState } from "react";
import { errorMessage } from "@/lib/errors";
import { trpc } from "@/lib/trpc";
import type { PolicyErrorView } from "./types";
import type { ValidationState } from "./validation-panel";

const DELAY_MS = 400;

export function useValidation(draft: string | null) {
  const validate = trpc.policy.validate.useMutation();
  const mutate = validate.mutateAsync;
  const [result, setResult] = useState<{ source: string; state: ValidationState } | null>(null);
  const latest = useRef<string | null>(null);

  const check = useCallback(
    async (source: string) => {
      latest.current = source;
      try {
        const r = await mutate({ source });
        if (latest.current !== source) return;
        setResult({ source, state: r.ok ? { status: "ok", ruleCount: r.ruleCount } : { status: "invalid", errors: r.errors } });
      } catch (err) {
        if (latest.current === source) setResult({ source, state: { status: "failed", message: errorMessage(err) } });
      }
    },
    [mutate],
  );

  useEffect(() => {
    if (draft === null || draft === latest.current) return;
    const timer = setTimeout(() => void check(draft), DELAY_MS);
    return () => clearTimeout(timer);
  }, [draft, check]);

  const current = draft !== null && result?.source === draft;
  const state: ValidationState = current ? result!.state : draft === null ? { status: "idle" } : { status: "checking" };
  // Markers stay on the last known errors while a newer check runs (lines rarely move much).
  const errors: PolicyErrorView[] = result?.state.status === "invalid" ? result.state.errors : [];
  return {
    state,
    errors,
    /** True when the draft is known to be invalid. */
    invalid: current && result!.state.status === "invalid",
    checkNow: () => draft !== null && void check(draft),
  };
}
