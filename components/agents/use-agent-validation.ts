"use client";
// Checks the draft on the server (agents.validate) a moment after editing
// stops, or at once before saving; an answer for an older draft is never
// shown as the current one. The browser's own problems (text where a number
// belongs) come first, the server's after, all at once.
import { useCallback, useEffect, useRef, useState } from "react";
import type { AgentSpecFields, Problem } from "@/lib/agent-draft";
import { errorMessage } from "@/lib/errors";
import { trpc } from "@/lib/trpc";

const DELAY_MS = 450;

export type ValidationStatus = "idle" | "checking" | "ok" | "invalid" | "failed";

export function useAgentValidation(spec: AgentSpecFields, local: Problem[], enabled: boolean) {
  const utils = trpc.useUtils();
  // Asked imperatively: each draft once, answers for older drafts dropped (not React Query's cache).
  const client = useRef(utils.client);
  client.current = utils.client;
  const key = JSON.stringify(spec);
  const [result, setResult] = useState<{ key: string; problems: Problem[] } | { key: string; failed: string } | null>(null);
  const latest = useRef<string | null>(null);

  const check = useCallback(async (s: AgentSpecFields): Promise<Problem[] | null> => {
    const k = JSON.stringify(s);
    latest.current = k;
    try {
      const r = await client.current.agents.validate.query({ spec: s });
      if (latest.current === k) setResult({ key: k, problems: r.problems });
      return r.problems;
    } catch (err) {
      if (latest.current === k) setResult({ key: k, failed: errorMessage(err) });
      return null;
    }
  }, []);

  useEffect(() => {
    if (!enabled || key === latest.current) return;
    const timer = setTimeout(() => void check(JSON.parse(key) as AgentSpecFields), DELAY_MS);
    return () => clearTimeout(timer);
  }, [enabled, key, check]);

  const current = result?.key === key ? result : null;
  // While a newer check runs the last answer's problems stay (fields do not flicker).
  const server = result && "problems" in result ? result.problems : [];
  const problems = [...local, ...server];
  const status: ValidationStatus =
    !enabled && !current ? "idle" : !current ? "checking" : "failed" in current ? "failed" : problems.length ? "invalid" : "ok";
  return {
    status,
    problems,
    /** Why the check itself failed (the server could not be reached …). */
    failure: current && "failed" in current ? current.failed : null,
    /** Checks now; the problems (local ones included), or null when the check failed. */
    checkNow: async () => {
      const r = await check(spec);
      return r === null ? null : [...local, ...r];
    },
  };
}
