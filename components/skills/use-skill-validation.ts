"use client";
// Checks the SKILL.md draft on the server a moment after typing stops.
import { useLiveCheck } from "@/lib/use-live-check";
import { trpc } from "@/lib/trpc";
import type { SkillProblemView } from "./skill-editor";

export type SkillValidation =
  | { status: "checking" }
  | { status: "ok"; name: string }
  | { status: "invalid"; problems: SkillProblemView[] }
  | { status: "failed"; message: string };

export function useSkillValidation(draft: string) {
  const mutate = trpc.skills.validate.useMutation().mutateAsync;
  const live = useLiveCheck<SkillValidation>(
    draft,
    async (text) => {
      const r = await mutate({ text });
      return r.ok ? { status: "ok", name: r.name } : { status: "invalid", problems: r.problems };
    },
    (message) => ({ status: "failed", message }),
  );
  // Markers stay on the last known problems while a newer check runs.
  const problems = live.last?.status === "invalid" ? live.last.problems : [];
  return { state: live.current ?? ({ status: "checking" } as const), problems };
}
