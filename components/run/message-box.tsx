"use client";
// The message box under the timeline: a person writes to the run's agent. A
// running (or queued, or waiting) run reads it before its next model call; a
// paused run resumes with it; an ended run continues with it, in the same
// workspace.
import { useEffect, useId, useState, type FormEvent, type KeyboardEvent } from "react";
import { FieldError } from "@/components/ui";
import { useRoleIn } from "@/lib/access";
import { errorMessage } from "@/lib/errors";
import { formatNumber } from "@/lib/format";
import { MAX_MESSAGE_CHARS } from "@/lib/limits";
import { useModifierLabel } from "@/lib/keyboard";
import { trpc, type Run, type RunState } from "@/lib/trpc";

/** The counter shows from here on. */
const COUNTER_FROM = 18_000;

const ENDED: RunState[] = ["succeeded", "failed", "canceled"];

type Mode = "next_turn" | "resume" | "continue";

const WORDS: Record<Mode, { button: string; busy: string; hint: string }> = {
  next_turn: { button: "Send", busy: "Sending…", hint: "The agent reads it before its next model call." },
  resume: { button: "Send and resume", busy: "Resuming…", hint: "The run resumes and the agent reads it first." },
  continue: { button: "Send and continue", busy: "Continuing…", hint: "The run continues from where it ended, in the same workspace." },
};

export function modeOf(status: RunState): Mode {
  if (status === "paused") return "resume";
  if (ENDED.includes(status)) return "continue";
  return "next_turn";
}

export function MessageBox({ run, status }: { run: Run; status: RunState }) {
  const { canOperate, operatorHint } = useRoleIn(run.teamId);
  const mod = useModifierLabel();
  const utils = trpc.useUtils();
  const id = useId();
  const [text, setText] = useState("");
  const [interrupt, setInterrupt] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [sent, setSent] = useState<string | null>(null);
  const say = trpc.runs.say.useMutation({
    onMutate: () => {
      setError(null);
      setSent(null);
    },
    onSuccess: (out) => {
      setText("");
      setInterrupt(false);
      setSent(
        out.delivery === "continued"
          ? out.from === "paused"
            ? "Sent: the run resumes and reads it first."
            : "Sent: the run continues with your message."
          : out.interrupted
            ? "Sent: the tool call was stopped and the agent reads your message now."
            : "Sent: the agent reads it before its next model call.",
      );
    },
    onError: (err) => setError(errorMessage(err)),
    onSettled: () => utils.runs.get.invalidate({ id: run.id }),
  });

  // "Sent" is news for a moment; the message's card in the timeline says what became of it.
  useEffect(() => {
    if (!sent) return;
    const timer = setTimeout(() => setSent(null), 6000);
    return () => clearTimeout(timer);
  }, [sent]);

  const mode = modeOf(status);
  const words = WORDS[mode];
  const length = text.length;
  const tooLong = length > MAX_MESSAGE_CHARS;
  const empty = text.trim().length === 0;
  const outOfSteps = mode === "continue" && run.stepCount >= run.maxSteps;
  const trial = mode === "continue" && !!run.experimentId;
  const disabled = !canOperate || say.isPending;

  function send(e?: FormEvent) {
    e?.preventDefault();
    if (disabled || empty || tooLong) return;
    say.mutate({ id: run.id, text, ...(interrupt && status === "running" ? { interrupt: true } : {}) });
  }

  function onKeyDown(e: KeyboardEvent<HTMLTextAreaElement>) {
    if ((e.ctrlKey || e.metaKey) && e.key === "Enter") {
      e.preventDefault();
      send();
    }
  }

  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  return (
    <form className="message-box" onSubmit={send} aria-label="Message the agent" data-mode={mode}>
      <label htmlFor={`${id}-text`} className="sr-only">
        Message the agent
      </label>
      <textarea
        id={`${id}-text`}
        className="textarea"
        rows={2}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          if (sent) setSent(null);
        }}
        onKeyDown={onKeyDown}
        placeholder={canOperate ? "Message the agent…" : "Only operators can message the agent"}
        disabled={!canOperate}
        title={canOperate ? undefined : operatorHint}
        aria-describedby={error ? `${errorId} ${hintId}` : hintId}
        aria-invalid={tooLong || !!error || undefined}
        data-testid="message-box"
      />
      <div className="message-box-bar">
        <span className="hint" id={hintId} data-testid="message-hint">
          {!canOperate
            ? operatorHint
            : trial
              ? "This run is a trial of an experiment: it cannot be continued. Re-run it instead."
              : outOfSteps
                ? `The run has made ${run.maxSteps === 1 ? "its only model call" : `all ${formatNumber(run.maxSteps)} of its model calls`}: it cannot read a message. Retry it with a higher step limit, or re-run it.`
                : words.hint}
        </span>
        {length >= COUNTER_FROM && (
          <span className={`small message-count${tooLong ? " over" : ""}`} data-testid="message-count" aria-live="polite">
            {formatNumber(length)} / {formatNumber(MAX_MESSAGE_CHARS)}
          </span>
        )}
        <span className="spacer" />
        {status === "running" && canOperate && (
          <label className="checkbox small" title="Stop the command or tool the agent is running now, so it reads your message at once">
            <input type="checkbox" checked={interrupt} onChange={(e) => setInterrupt(e.target.checked)} data-testid="message-interrupt" />
            Interrupt the current tool call
          </label>
        )}
        <span className="hint message-kbd" aria-hidden="true">
          <kbd>{mod}+Enter</kbd>
        </span>
        <button
          type="submit"
          className="btn btn-primary btn-sm"
          disabled={disabled || empty || tooLong}
          title={canOperate ? `${words.button} (${mod}+Enter)` : operatorHint}
          data-testid="send-message"
        >
          {say.isPending && <span className="spinner" aria-hidden="true" />}
          {say.isPending ? words.busy : words.button}
        </button>
      </div>
      {tooLong && (
        <FieldError
          message={
            <>
              A message is at most {formatNumber(MAX_MESSAGE_CHARS)} characters: remove {formatNumber(length - MAX_MESSAGE_CHARS)}.
            </>
          }
          live
        />
      )}
      {error && <FieldError id={errorId} message={<>Not sent: {error}</>} testId="message-error" live />}
      {sent && (
        <span className="small muted" role="status" data-testid="message-sent">
          {sent}
        </span>
      )}
    </form>
  );
}
