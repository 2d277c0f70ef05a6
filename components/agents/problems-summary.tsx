"use client";
// Every problem of the draft at the top of the form, each a link to its field.
import { ErrorBlock } from "@/components/ui";
import { FIELD_LABELS, type FieldKey, type GroupedProblems } from "@/lib/agent-draft";
import styles from "./agents.module.css";

function focusField(field: FieldKey) {
  const el = document.getElementById(`agent-field-${field}`);
  if (!el) return;
  el.scrollIntoView({ block: "center", behavior: "smooth" });
  el.querySelector<HTMLElement>("input:not([type=hidden]), select, textarea, [role=textbox], .monaco-editor textarea")?.focus({
    preventScroll: true,
  });
}

export function ProblemsSummary({ problems, title }: { problems: GroupedProblems; title: string }) {
  if (problems.count === 0) return null;
  const entries = Object.entries(problems.byField) as Array<[FieldKey, string[]]>;
  return (
    <ErrorBlock className={styles.summary} testId="agent-problems">
      <div>
        <strong>{title}</strong>
        <ul>
          {entries.flatMap(([field, messages]) =>
            messages.map((m) => (
              <li key={`${field}:${m}`} data-field={field}>
                <button type="button" className={styles.problemLink} onClick={() => focusField(field)}>
                  {FIELD_LABELS[field]}
                </button>
                : {m}
              </li>
            )),
          )}
          {problems.other.map((m) => (
            <li key={`other:${m}`}>{m}</li>
          ))}
        </ul>
      </div>
    </ErrorBlock>
  );
}
