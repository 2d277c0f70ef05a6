// Collapsible, pretty-printed JSON.
export function prettyJson(value: unknown): string {
  if (value === undefined) return "undefined";
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

export function JsonBlock({ value, summary, open = false, testId }: { value: unknown; summary: string; open?: boolean; testId?: string }) {
  return (
    <details className="disclosure" open={open} data-testid={testId} style={{ marginTop: 8 }}>
      <summary>{summary}</summary>
      <pre className="code-block light">{prettyJson(value)}</pre>
    </details>
  );
}
