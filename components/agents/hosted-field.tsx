"use client";
// The agent editor's Hosted program (docs/hosted-agents.md): none runs Rein's
// own loop; a program runs in the run's sandbox instead, with its own tools.
import Link from "next/link";
import type { AgentDraft } from "@/lib/agent-draft";
import { errorMessage } from "@/lib/errors";
import { trpc } from "@/lib/trpc";
import { FieldProblems, problemProps } from "./field-problems";

export function useHostedPrograms() {
  return trpc.hosted.list.useQuery(undefined, { staleTime: 60_000 });
}

export function HostedField({
  draft,
  readOnly,
  problems,
  onChange,
}: {
  draft: AgentDraft;
  readOnly: boolean;
  problems?: string[];
  onChange(patch: Partial<AgentDraft>): void;
}) {
  const programs = useHostedPrograms();
  const list = programs.data?.programs ?? [];
  const chosen = list.find((p) => p.id === draft.hostedProgram);
  return (
    <div className="field" id="agent-field-hosted" style={{ maxWidth: 520 }}>
      <label htmlFor="agent-hosted">Hosted program</label>
      <select
        id="agent-hosted"
        className="select"
        value={draft.hostedProgram}
        disabled={readOnly || programs.isLoading}
        onChange={(e) => onChange({ hostedProgram: e.target.value })}
        data-testid="agent-hosted"
        {...problemProps("hosted", problems)}
      >
        <option value="">None — Rein&apos;s own loop</option>
        {draft.hostedProgram && !chosen && <option value={draft.hostedProgram}>{draft.hostedProgram}</option>}
        {list.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
            {p.installed ? "" : " (not installed)"}
          </option>
        ))}
      </select>
      {problems?.length ? (
        <FieldProblems field="hosted" messages={problems} />
      ) : (
        <span className="hint" data-testid="agent-hosted-hint">
          {programs.isError
            ? `Could not load the programs: ${errorMessage(programs.error)}`
            : chosen
              ? `${chosen.description} Its model calls go to the model above, through Rein's gateway.${chosen.installed ? "" : ` It is not installed yet: ${chosen.notInstalledReason ?? ""}`}`
              : "Rein runs the agent itself. Pick a program to run a coding agent of its own in the run's sandbox instead."}{" "}
          <Link href="/settings/hosted">Settings › Hosted agents</Link>
        </span>
      )}
    </div>
  );
}

/** What the Tools and Hands off to sections say instead of their lists while a program is chosen. */
export function HostedToolsNote({ program, what, testId }: { program: string; what: "tools" | "handoffs"; testId: string }) {
  const programs = useHostedPrograms();
  const name = programs.data?.programs.find((p) => p.id === program)?.name ?? program;
  return (
    <p className="hint" data-testid={testId}>
      {what === "tools"
        ? `${name} brings its own tools: its file changes and commands go through Rein's files, terminal and policy.`
        : `A hosted agent does the whole run itself: it hands off to no one.`}
    </p>
  );
}
