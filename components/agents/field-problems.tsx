// A field's problems, in the server's words, under the field.
export function FieldProblems({ field, messages }: { field: string; messages?: string[] }) {
  if (!messages?.length) return null;
  return (
    <ul
      className="field-problems"
      id={`agent-problems-${field.replace(/\./g, "-")}`}
      data-testid="field-problem"
      data-field={field}
      style={{ listStyle: "none", margin: 0, padding: 0 }}
    >
      {messages.map((m) => (
        <li key={m} className="field-error">
          {m}
        </li>
      ))}
    </ul>
  );
}

/** aria props for an input whose problems FieldProblems shows. */
export function problemProps(field: string, messages?: string[]) {
  return messages?.length ? { "aria-invalid": true as const, "aria-describedby": `agent-problems-${field.replace(/\./g, "-")}` } : {};
}
