"use client";
// Checks a draft on the server a moment after typing stops (or at once on
// demand); a result for an older text is never shown as the current one.
import { useCallback, useEffect, useRef, useState } from "react";
import { errorMessage } from "@/lib/errors";

const DELAY_MS = 400;

export function useLiveCheck<S>(draft: string | null, run: (text: string) => Promise<S>, failed: (message: string) => S) {
  const [result, setResult] = useState<{ text: string; state: S } | null>(null);
  const latest = useRef<string | null>(null);
  // The newest callbacks, without restarting the timer on every render.
  const fns = useRef({ run, failed });
  fns.current = { run, failed };

  const check = useCallback(async (text: string) => {
    latest.current = text;
    try {
      const state = await fns.current.run(text);
      if (latest.current === text) setResult({ text, state });
    } catch (err) {
      if (latest.current === text) setResult({ text, state: fns.current.failed(errorMessage(err)) });
    }
  }, []);

  useEffect(() => {
    if (draft === null || draft === latest.current) return;
    const timer = setTimeout(() => void check(draft), DELAY_MS);
    return () => clearTimeout(timer);
  }, [draft, check]);

  return {
    /** The result for the draft as it is now, or null while it is being checked. */
    current: draft !== null && result?.text === draft ? result.state : null,
    /** The last result, for whatever text (markers stay on it while a newer check runs). */
    last: result?.state ?? null,
    checkNow: () => draft !== null && void check(draft),
  };
}
