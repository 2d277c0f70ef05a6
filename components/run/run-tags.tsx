"use client";
// The run page's Tags box: the run's labels; operators of its team add and remove them.
import Link from "next/link";
import { useState } from "react";
import { FieldError } from "@/components/ui";
import { useRoleIn } from "@/lib/access";
import { errorMessage } from "@/lib/errors";
import { MAX_RUN_TAGS, parseTags } from "@/lib/run-tags";
import { trpc, type Run } from "@/lib/trpc";

export function RunTags({ run }: { run: Run }) {
  const { canOperate } = useRoleIn(run.teamId);
  const utils = trpc.useUtils();
  const [text, setText] = useState("");
  const [error, setError] = useState<string | null>(null);
  const save = trpc.runs.setTags.useMutation({
    onSuccess: () => {
      setText("");
      void utils.runs.get.invalidate({ id: run.id });
      void utils.runs.list.invalidate();
    },
  });

  function add() {
    const parsed = parseTags(text);
    if (parsed.error) return setError(parsed.error);
    if (parsed.tags.length === 0) return;
    const next = [...new Set([...run.tags, ...parsed.tags])];
    if (next.length > MAX_RUN_TAGS) return setError(`A run has at most ${MAX_RUN_TAGS} tags`);
    setError(null);
    save.mutate({ id: run.id, tags: next });
  }

  const shown = error ?? (save.error ? errorMessage(save.error) : null);
  return (
    <section className="card card-body stack" data-testid="run-tags">
      <h2 className="panel-title">Tags</h2>
      {run.tags.length === 0 ? (
        <p className="muted small">No tags{canOperate ? "; add some to find this run on the Runs list." : "."}</p>
      ) : (
        <ul className="row" style={{ flexWrap: "wrap", gap: 6, listStyle: "none", margin: 0, padding: 0 }}>
          {run.tags.map((tag) => (
            <li key={tag} className="badge" data-testid="run-tag">
              <Link href={`/runs?tag=${encodeURIComponent(tag)}`}>{tag}</Link>
              {canOperate && (
                <button
                  type="button"
                  className="btn btn-ghost btn-sm"
                  style={{ padding: "0 4px", height: "auto" }}
                  aria-label={`Remove the tag ${tag}`}
                  disabled={save.isPending}
                  onClick={() => save.mutate({ id: run.id, tags: run.tags.filter((t) => t !== tag) })}
                >
                  ×
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {canOperate && (
        <form
          className="row"
          style={{ gap: 6, alignItems: "flex-start" }}
          onSubmit={(e) => {
            e.preventDefault();
            add();
          }}
        >
          <div className="field" style={{ flex: 1, minWidth: 0 }}>
            <input
              className="input"
              value={text}
              onChange={(e) => (setText(e.target.value), setError(null), save.reset())}
              placeholder="Add tags…"
              aria-label="Add tags"
              aria-invalid={shown ? true : undefined}
              aria-describedby={shown ? "run-tags-error" : undefined}
              data-testid="run-tag-input"
            />
            <FieldError id="run-tags-error" message={shown} testId="run-tag-error" />
          </div>
          <button type="submit" className="btn btn-sm" disabled={save.isPending || !text.trim()} data-testid="run-tag-add">
            Add
          </button>
        </form>
      )}
    </section>
  );
}
