"use client";
// Settings › Policy: rules Rein proposes from commands people keep approving in one team
// (docs/human-requests-and-policy.md#suggested-rules). Each shows the approvals it rests on and
// what it changes; Add rule saves it as a new policy version, Dismiss asks why.
import Link from "next/link";
import { useState } from "react";
import { ConfirmAction, ReasonField } from "@/components/ui";
import { formatDateTime, formatRelative } from "@/lib/format";
import { trpc, type RouterOutputs } from "@/lib/trpc";

type Suggestion = RouterOutputs["policy"]["suggestions"][number];

const EFFECT_WORDS = { allow: "runs", deny: "is refused", ask: "asks a person" } as const;

/** Shown only when there is something to suggest: an empty list takes no room on the page. */
export function SuggestedRules({ onAdded }: { onAdded(version: number): void }) {
  const list = trpc.policy.suggestions.useQuery(undefined, { refetchInterval: 60_000 });
  const items = list.data ?? [];
  if (!items.length) return null;
  return (
    <section className="card" aria-labelledby="policy-suggestions-title" data-testid="policy-suggestions">
      <div className="card-header">
        <h2 id="policy-suggestions-title">Suggested rules</h2>
      </div>
      <div className="card-body stack">
        <p className="small muted">
          Command lines people approved again and again in one team, and never rejected or edited. Each rule allows exactly that line, as
          written, in that team and in the tiers it was approved in; every other call is decided as before.
        </p>
        <ul className="stack" style={{ listStyle: "none", margin: 0, padding: 0 }}>
          {items.map((s) => (
            <SuggestionItem key={s.id} s={s} onAdded={onAdded} />
          ))}
        </ul>
      </div>
    </section>
  );
}

function SuggestionItem({ s, onAdded }: { s: Suggestion; onAdded(version: number): void }) {
  const utils = trpc.useUtils();
  const [adding, setAdding] = useState(false);
  const [dismissing, setDismissing] = useState(false);
  const [reason, setReason] = useState("");
  const refresh = () =>
    Promise.all([utils.policy.suggestions.invalidate(), utils.policy.active.invalidate(), utils.policy.versions.invalidate()]);
  const accept = trpc.policy.acceptSuggestion.useMutation({
    onSuccess: async (saved) => {
      setAdding(false);
      onAdded(saved.version);
      await refresh();
    },
  });
  const dismiss = trpc.policy.dismissSuggestion.useMutation({
    onSuccess: async () => {
      setDismissing(false);
      setReason("");
      await refresh();
    },
  });
  const people = s.approvers === 1 ? "1 person" : `${s.approvers} people`;
  return (
    <li className="stack" data-testid="policy-suggestion" data-command={s.command}>
      <div>
        <code>{s.command}</code> in <strong>{s.team.name}</strong>
      </div>
      <div className="small" data-testid="policy-suggestion-evidence">
        Approved {s.approvals} times by {people}, never rejected{s.agents.length ? ` · asked by ${s.agents.join(", ")}` : ""} · in{" "}
        {s.tiers.join(", ")}. Today it {EFFECT_WORDS[s.now.effect]}; with the rule it {EFFECT_WORDS[s.withRule.effect]}.
      </div>
      <div className="small muted" data-testid="policy-suggestion-others">
        Since <span title={formatDateTime(s.since)}>{formatRelative(s.since, Date.now())}</span>, the team&apos;s{" "}
        {s.otherQuestions === 1 ? "1 other question is" : `${s.otherQuestions} other questions are`} decided as before: the rule matches
        none of them.
      </div>
      <details>
        <summary className="small">The rule and the approvals</summary>
        <pre className="code-block light small" data-testid="policy-suggestion-yaml">
          {s.yaml}
        </pre>
        <ul className="small">
          {s.recent.map((a) => (
            <li key={a.requestId}>
              {a.decidedBy.name} approved <span title={formatDateTime(a.decidedAt)}>{formatRelative(a.decidedAt, Date.now())}</span>
              {a.channel ? ` in ${a.channel}` : ""} · run <Link href={`/runs/${encodeURIComponent(a.runId)}`}>{a.runId}</Link>
              {a.agentName ? ` (${a.agentName})` : ""}
            </li>
          ))}
        </ul>
      </details>
      <div className="row">
        <button type="button" className="btn btn-primary btn-sm" onClick={() => setAdding(true)} data-testid="policy-suggestion-add">
          Add rule
        </button>
        <button type="button" className="btn btn-ghost btn-sm" onClick={() => setDismissing(true)} data-testid="policy-suggestion-dismiss">
          Dismiss…
        </button>
      </div>
      <ConfirmAction
        open={adding}
        title="Add this rule to the policy?"
        confirmLabel="Add rule"
        busyLabel="Adding…"
        tone="primary"
        action={accept}
        onConfirm={() => accept.mutate({ id: s.id })}
        onClose={() => setAdding(false)}
      >
        <p>
          It is saved as a new policy version, recorded in the audit log. From then on <code>{s.command}</code> runs in {s.team.name}{" "}
          without asking. To take it back, delete the rule in the Rules tab and save.
        </p>
      </ConfirmAction>
      <ConfirmAction
        open={dismissing}
        title="Stop suggesting this rule?"
        confirmLabel="Dismiss"
        busyLabel="Dismissing…"
        action={dismiss}
        confirmDisabled={!reason.trim()}
        onConfirm={() => dismiss.mutate({ id: s.id, reason: reason.trim() })}
        onClose={() => setDismissing(false)}
      >
        <p>The command keeps asking a person, and this rule is not suggested again.</p>
        <ReasonField
          label="Why it should keep asking"
          value={reason}
          onChange={setReason}
          maxLength={500}
          placeholder="e.g. Pushes to main stay with a person"
          testId="policy-suggestion-reason"
        />
      </ConfirmAction>
    </li>
  );
}
