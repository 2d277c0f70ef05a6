"use client";
// The answer to an open request, by kind
// (docs/human-requests-and-policy.md#the-inbox): approve / reject (optionally with
// edited arguments), choose one option, provide a value from the schema's form, or
// veto before the deadline. Saying no asks for a reason and a confirmation, and says
// what it will do (decision-words.ts). Keys: a = the yes answer, r = start a reject
// (focus the reason), Ctrl+Enter there = confirm.
import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { ErrorBlock, FieldError } from "@/components/ui";
import { ClockIcon } from "@/components/icons";
import { formFromSchema, initialValues, readForm, type FormValues } from "@/lib/schema-form";
import styles from "./inbox.module.css";
import { noConsequence, noWord as noWordOf } from "@/lib/decision-words";
import { typingIn } from "./keys";
import { SchemaForm } from "./schema-form";
import { formatTimeLeft, type Decision, type HumanRequestView } from "./types";

/** Whether the answer may carry edited arguments for the tool call. */
export function editableArguments(request: Pick<HumanRequestView, "kind" | "slot" | "payload">): boolean {
  return (request.kind === "approve" && request.slot === "policy") || (!!request.payload.allowEditedArguments && request.kind !== "veto");
}

function prettyArgs(args: unknown): string {
  try {
    return JSON.stringify(args ?? {}, null, 2);
  } catch {
    return "{}";
  }
}

/** The edited arguments to send, null when unchanged, or the reason they cannot be sent. */
function readEditedArguments(text: string, original: unknown): { value: Record<string, unknown> | null } | { error: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { error: `The arguments are not valid JSON: ${(err as Error).message}` };
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed))
    return { error: 'The arguments must be a JSON object, like {"command": "…"}' };
  return { value: JSON.stringify(parsed) === JSON.stringify(original ?? {}) ? null : (parsed as Record<string, unknown>) };
}

export function DecisionForm({
  request,
  now,
  pending,
  error,
  shortcuts,
  onDecide,
}: {
  request: HumanRequestView;
  now: number;
  pending: boolean;
  /** The server's refusal of the last answer, shown as it said it. */
  error: string | null;
  /** a / r work while focus is outside text fields. */
  shortcuts: boolean;
  onDecide(decision: Decision): void;
}) {
  const id = useId();
  const { kind, payload } = request;
  const [comment, setComment] = useState("");
  const [rejectArmed, setRejectArmed] = useState(false);
  const commentRef = useRef<HTMLTextAreaElement>(null);

  const editable = editableArguments(request);
  const [editing, setEditing] = useState(false);
  const [argsText, setArgsText] = useState(() => prettyArgs(payload.args));
  const [argsError, setArgsError] = useState<string | null>(null);

  const [optionId, setOptionId] = useState<string>("");
  const [optionError, setOptionError] = useState<string | null>(null);

  const formSpec = useMemo(() => formFromSchema(payload.schema), [payload.schema]);
  const [values, setValues] = useState<FormValues>(() => initialValues(formSpec, payload.schema));
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});

  const note = comment.trim() ? { comment: comment.trim() } : {};

  function edited(): { ok: true; args?: Record<string, unknown> } | { ok: false } {
    if (!editable || !editing) return { ok: true };
    const r = readEditedArguments(argsText, payload.args);
    if ("error" in r) {
      setArgsError(r.error);
      return { ok: false };
    }
    setArgsError(null);
    return { ok: true, args: r.value ?? undefined };
  }

  /** The "yes" answer of this kind (the a key). */
  function submitYes() {
    if (pending) return;
    if (kind === "approve" || kind === "veto") {
      const e = edited();
      if (!e.ok) return;
      onDecide({ decision: "approve", ...note, ...(e.args ? { editedArguments: e.args } : {}) });
    } else if (kind === "choose") {
      if (!optionId) {
        setOptionError("Choose one of the options");
        return;
      }
      setOptionError(null);
      const e = edited();
      if (!e.ok) return;
      onDecide({ decision: "choose", optionId, ...note, ...(e.args ? { editedArguments: e.args } : {}) });
    } else {
      const r = readForm(formSpec, values);
      if (!r.ok) {
        setFieldErrors(r.errors);
        return;
      }
      setFieldErrors({});
      onDecide({ decision: "provide", value: r.value, ...note });
    }
  }

  /** Sends the no: only once the person confirmed it (the reject step is open). */
  function submitNo() {
    if (pending || !rejectArmed) return;
    onDecide({ decision: kind === "veto" ? "veto" : "reject", ...note });
  }

  function armReject() {
    setRejectArmed(true);
    commentRef.current?.focus();
  }

  function disarmReject() {
    setRejectArmed(false);
  }

  const latest = useRef({ submitYes, armReject });
  latest.current = { submitYes, armReject };
  useEffect(() => {
    if (!shortcuts) return;
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (
        e.defaultPrevented ||
        e.repeat ||
        e.ctrlKey ||
        e.metaKey ||
        e.altKey ||
        typingIn(e.target) ||
        document.querySelector("dialog[open]")
      )
        return;
      if (e.key === "a") {
        e.preventDefault();
        latest.current.submitYes();
      } else if (e.key === "r") {
        e.preventDefault();
        latest.current.armReject();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [shortcuts]);

  function onCommentKey(e: KeyboardEvent<HTMLTextAreaElement>) {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && rejectArmed) {
      e.preventDefault();
      submitNo();
    } else if (e.key === "Escape" && rejectArmed) {
      e.preventDefault();
      e.stopPropagation();
      disarmReject();
      commentRef.current?.blur();
    }
  }

  const left = new Date(request.expiresAt).getTime() - now;
  const noWord = noWordOf(kind);

  return (
    <section
      className={`${styles.decision} ${styles.decisionOpen}`}
      aria-label="Your decision"
      data-testid="decision-form"
      data-kind={kind}
    >
      <h3 className={styles.sectionTitle}>Your decision</h3>

      {kind === "veto" && (
        <div className={styles.vetoClock} data-testid="veto-countdown">
          <ClockIcon />
          {left > 0 ? (
            <span>
              Goes ahead in <strong>{formatTimeLeft(left)}</strong> unless someone vetoes.
            </span>
          ) : (
            <span>The deadline has passed; it is going ahead.</span>
          )}
        </div>
      )}

      {kind === "choose" && (
        <fieldset
          className={styles.options}
          style={{ border: 0, padding: 0, margin: 0 }}
          aria-describedby={optionError ? `${id}-option-error` : undefined}
        >
          <legend className="label" style={{ marginBottom: 6 }}>
            Choose one
          </legend>
          {(payload.options ?? []).map((o) => (
            <label key={o.id} className={styles.option} data-testid={`choose-option-${o.id}`}>
              <input
                type="radio"
                name={`${id}-option`}
                value={o.id}
                checked={optionId === o.id}
                disabled={pending}
                onChange={() => {
                  setOptionId(o.id);
                  setOptionError(null);
                }}
              />
              <span className="stack" style={{ gap: 2 }}>
                <strong>{o.label}</strong>
                {o.detail && <span className={styles.optionDetail}>{o.detail}</span>}
              </span>
            </label>
          ))}
          <FieldError id={`${id}-option-error`} message={optionError} testId="choose-error" />
        </fieldset>
      )}

      {kind === "provide" && (
        <SchemaForm
          spec={formSpec}
          values={values}
          errors={fieldErrors}
          disabled={pending}
          idPrefix={`${id}-field`}
          onChange={(key, v) => {
            setValues((prev) => ({ ...prev, [key]: v }));
            setFieldErrors((prev) => {
              if (!(key in prev)) return prev;
              const next = { ...prev };
              delete next[key];
              return next;
            });
          }}
        />
      )}

      {editable && (
        <div className="field">
          <label className="checkbox">
            <input
              type="checkbox"
              checked={editing}
              onChange={(e) => setEditing(e.target.checked)}
              disabled={pending}
              data-testid="edit-args-toggle"
            />
            Edit arguments before {kind === "choose" ? "running it again" : "approving"}
          </label>
          {editing && (
            <>
              <textarea
                className="textarea mono"
                rows={Math.min(12, Math.max(4, argsText.split("\n").length + 1))}
                value={argsText}
                spellCheck={false}
                aria-label="Edited arguments (JSON)"
                aria-invalid={argsError ? true : undefined}
                onChange={(e) => {
                  setArgsText(e.target.value);
                  setArgsError(null);
                }}
                disabled={pending}
                data-testid="edit-args-input"
              />
              {argsError ? (
                <FieldError message={argsError} testId="edit-args-error" />
              ) : (
                <span className="hint">The tool runs with these arguments instead; they are checked against the tool&apos;s schema.</span>
              )}
            </>
          )}
        </div>
      )}

      <div className="field">
        <label htmlFor={`${id}-comment`}>
          {rejectArmed ? "Reason" : "Comment"}{" "}
          <span className="muted" style={{ fontWeight: 400 }}>
            (optional{rejectArmed || kind === "veto" ? ", tell them why" : ""})
          </span>
        </label>
        <textarea
          ref={commentRef}
          id={`${id}-comment`}
          className="textarea"
          rows={2}
          maxLength={4000}
          value={comment}
          placeholder={
            rejectArmed
              ? `Why ${noWord.toLowerCase()}? Ctrl+Enter to ${noWord.toLowerCase()}, Esc to cancel`
              : "Add a note for the run's timeline"
          }
          onChange={(e) => setComment(e.target.value)}
          onKeyDown={onCommentKey}
          disabled={pending}
          data-testid="decision-comment"
        />
        {rejectArmed && (
          <span className="hint" data-testid="reject-armed">
            <kbd>Ctrl</kbd> + <kbd>Enter</kbd> to {noWord.toLowerCase()} with this reason, <kbd>Esc</kbd> to go back
          </span>
        )}
      </div>

      {rejectArmed && (
        <div className="alert alert-warn" role="group" aria-label={`Confirm: ${noWord.toLowerCase()}`} data-testid="reject-confirm">
          <div className="stack" style={{ gap: 8 }}>
            <strong>
              {noWord} this {kind === "approve" || kind === "veto" ? "call" : "request"}?
            </strong>
            <span data-testid="reject-consequence">{noConsequence(request)}</span>
            <div className="row">
              <button
                type="button"
                className="btn btn-danger-solid"
                onClick={submitNo}
                disabled={pending}
                data-testid="decide-reject-confirm"
              >
                {pending && <span className="spinner" aria-hidden="true" />}
                {noWord}
                {comment.trim() ? " with this reason" : " without a reason"}
              </button>
              <button type="button" className="btn" onClick={disarmReject} disabled={pending} data-testid="decide-reject-cancel">
                Go back
              </button>
            </div>
          </div>
        </div>
      )}

      <ErrorBlock message={error} testId="decide-error" />

      <div className={styles.actions}>
        {kind === "approve" && (
          <>
            <button type="button" className="btn btn-primary" onClick={submitYes} disabled={pending} data-testid="decide-approve">
              {pending && <span className="spinner" aria-hidden="true" />}
              Approve{shortcuts && <kbd aria-hidden="true">A</kbd>}
            </button>
            <button
              type="button"
              className="btn btn-danger"
              onClick={armReject}
              disabled={pending || rejectArmed}
              aria-expanded={rejectArmed}
              data-testid="decide-reject"
            >
              Reject{shortcuts && <kbd aria-hidden="true">R</kbd>}
            </button>
          </>
        )}
        {kind === "veto" && (
          <>
            <button
              type="button"
              className="btn btn-danger-solid"
              onClick={armReject}
              disabled={pending || rejectArmed}
              aria-expanded={rejectArmed}
              data-testid="decide-veto"
            >
              Veto{shortcuts && <kbd aria-hidden="true">R</kbd>}
            </button>
            <button type="button" className="btn" onClick={submitYes} disabled={pending} data-testid="decide-approve-now">
              Approve now{shortcuts && <kbd aria-hidden="true">A</kbd>}
            </button>
          </>
        )}
        {(kind === "choose" || kind === "provide") && (
          <>
            <button type="button" className="btn btn-primary" onClick={submitYes} disabled={pending} data-testid={`decide-${kind}`}>
              {pending && <span className="spinner" aria-hidden="true" />}
              {kind === "choose" ? "Choose" : "Send answer"}
              {shortcuts && <kbd aria-hidden="true">A</kbd>}
            </button>
            <button
              type="button"
              className="btn btn-danger"
              onClick={armReject}
              disabled={pending || rejectArmed}
              aria-expanded={rejectArmed}
              data-testid="decide-decline"
            >
              Decline{shortcuts && <kbd aria-hidden="true">R</kbd>}
            </button>
          </>
        )}
      </div>
    </section>
  );
}
