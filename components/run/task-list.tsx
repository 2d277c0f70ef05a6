import { InlineCode } from "@/components/inbox/inline-code";
import type { Task } from "@/lib/run-events";

const MARK: Record<string, string> = { done: "✓", doing: "•", failed: "✕", todo: "" };

export function TaskList({ tasks }: { tasks: Task[] }) {
  if (tasks.length === 0) return <p className="muted small">The task list is empty.</p>;
  return (
    <ul className="task-list">
      {tasks.map((t, i) => (
        <li key={i} className={`task task-${t.status}`} data-status={t.status}>
          <span className="task-mark" aria-label={t.status}>
            {MARK[t.status] ?? ""}
          </span>
          <span className="task-title">
            <InlineCode text={t.title} />
            {t.status === "doing" && <span className="muted small"> (in progress)</span>}
          </span>
        </li>
      ))}
    </ul>
  );
}
