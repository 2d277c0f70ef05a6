"use client";
// Checks the draft on the server a moment after typing stops; results for an
// older text are never shown as the current ones.
import { useCallback, useEffect, useRef, useState } from "react";
import { errorMessage } from "@/lib/errors";
import { trpc } from "@/lib/trpc";
import type { SkillProblemView } from "./skill-editor";

const DELAY_MS = 400;

export type SkillValidation = { status: "checking" } | { status: "ok"; name: string } | { status: "invalid"; problems: SkillProblemView[] } | { status: "failed"; message: string };

export function useSkillValidation(draft: string) {
  const mutate = trpc.skills.validate.useMutation().mutateAsync;
  const [result, setResult] = useState<{ text: string; state: SkillValidation } | null>(null);
  const latest = useRef<string | null>(null);

  const check = useCallback(
    async (text: string) => {
      latest.current = text;
      try {
        const r = await mutate({ text });
        if (latest.current !== text) return;
        setResult({ text, state: r.ok ? { status: "ok", name: r.name } : { status: "invalid", problems: r.problems } });
      } catch (err) {
        if (latest.current === text) setResult({ text, state: { status: "failed", message: errorMessage(err) } });
      }
    },
    [mutate],
  );

  useEffect(() => {
    if (draft === latest.current) return;
    const timer = setTimeout(() => void check(draft), DELAY_MS);
    return () => clearTimeout(timer);
  }, [draft, check]);

  const state: SkillValidation = result?.text === draft ? result.state : { status: "checking" };
  // Markers stay on the last known problems while a newer check runs.
  const problems = result?.state.status === "invalid" ? result.state.problems : [];
  return { state, problems };
}
