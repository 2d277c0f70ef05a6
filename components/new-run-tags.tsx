"use client";
// The New run dialog's Tags field: labels to find the run by later, checked as typed.
import { FieldError } from "@/components/ui";
import { MAX_RUN_TAGS } from "@/lib/run-tags";

export function NewRunTags({ value, error, onChange }: { value: string; error: string | null; onChange(value: string): void }) {
  return (
    <div className="field">
      <label htmlFor="new-run-tags">
        Tags <span className="muted small">(optional)</span>
      </label>
      <input
        id="new-run-tags"
        className="input"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        placeholder="e.g. nightly, bug-123"
        aria-invalid={error ? true : undefined}
        aria-describedby="new-run-tags-help"
        data-testid="new-run-tags"
      />
      {error ? (
        <FieldError id="new-run-tags-help" message={error} testId="new-run-tags-error" />
      ) : (
        <span className="small muted" id="new-run-tags-help">
          Separate with commas or spaces; up to {MAX_RUN_TAGS}, each letters, digits and - _ . :
        </span>
      )}
    </div>
  );
}
