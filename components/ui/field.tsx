// A form field: its label, its control, and under it either its problem or a
// hint, wired so a screen reader reads the problem with the control
// (aria-invalid, aria-describedby). docs/development.md#ui-primitives
import { useId, type CSSProperties, type ReactNode } from "react";

/** A field's problem, under its control; nothing when there is none. */
export function FieldError({
  id,
  message,
  testId,
  live = false,
  block = false,
  className,
  style,
}: {
  /** The id the control's aria-describedby points at. */
  id?: string;
  message?: ReactNode;
  testId?: string;
  /** Announced as it appears (role="alert"): for problems found after a person acts, not while they type. */
  live?: boolean;
  /** A block of its own (a div) rather than a line inside a .field. */
  block?: boolean;
  className?: string;
  style?: CSSProperties;
}) {
  if (message === undefined || message === null || message === false || message === "") return null;
  const Tag = block ? "div" : "span";
  return (
    <Tag
      className={`field-error${className ? ` ${className}` : ""}`}
      id={id}
      role={live ? "alert" : undefined}
      data-testid={testId}
      style={style}
    >
      {message}
    </Tag>
  );
}

/** The attributes a control gets when it has a problem: marked invalid, described by the problem's id. */
export function invalidProps(errorId: string, message?: unknown) {
  return message ? { "aria-invalid": true as const, "aria-describedby": errorId } : {};
}

/** What a Field hands its control: the id its label points at, and the invalid/described-by wiring. */
export interface FieldControlProps {
  id: string;
  "aria-invalid"?: true;
  "aria-describedby"?: string;
}

export function Field({
  label,
  id,
  hint,
  error,
  errorTestId,
  errorLive = false,
  keepHint = false,
  className,
  style,
  children,
}: {
  label: ReactNode;
  /** The control's id (default: a generated one). */
  id?: string;
  /** Shown under the control while there is no problem. */
  hint?: ReactNode;
  error?: ReactNode;
  errorTestId?: string;
  errorLive?: boolean;
  /** The hint stays under the problem (it says what the problem is measured against). */
  keepHint?: boolean;
  /** Extra classes after "field". */
  className?: string;
  style?: CSSProperties;
  children(control: FieldControlProps): ReactNode;
}) {
  const generated = useId();
  const controlId = id ?? generated;
  const errorId = `${controlId}-error`;
  const hintId = `${controlId}-hint`;
  const hasError = !(error === undefined || error === null || error === false || error === "");
  const showHint = !!hint && (!hasError || keepHint);
  const describedBy = [hasError ? errorId : null, showHint ? hintId : null].filter(Boolean).join(" ");
  const control: FieldControlProps = {
    id: controlId,
    ...(hasError ? { "aria-invalid": true as const } : {}),
    ...(describedBy ? { "aria-describedby": describedBy } : {}),
  };
  return (
    <div className={`field${className ? ` ${className}` : ""}`} style={style}>
      <label htmlFor={controlId}>{label}</label>
      {children(control)}
      {hasError && <FieldError id={errorId} message={error} testId={errorTestId} live={errorLive} />}
      {showHint && (
        <span className="hint" id={hintId}>
          {hint}
        </span>
      )}
    </div>
  );
}

/** After a required field's label: a mark the eye sees and the words a screen reader says. */
export function RequiredMark() {
  return (
    <>
      <span className="required-mark" aria-hidden="true">
        *
      </span>
      <span className="sr-only"> (required)</span>
    </>
  );
}

/** The required "why" of an action a person confirms (dismiss, revert): a labelled text area. */
export function ReasonField({
  label,
  value,
  onChange,
  placeholder,
  maxLength = 2000,
  testId,
}: {
  label: ReactNode;
  value: string;
  onChange(value: string): void;
  placeholder?: string;
  maxLength?: number;
  testId?: string;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>
        {label} <RequiredMark />
      </label>
      <textarea
        id={id}
        className="textarea"
        rows={3}
        required
        maxLength={maxLength}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        placeholder={placeholder}
        data-testid={testId}
      />
    </div>
  );
}
