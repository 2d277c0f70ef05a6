"use client";
// One memory: what it says and where it came from; operators of its team
// edit it in place, pin it, keep or discard it while it waits, or delete it.
import Link from "next/link";
import { useState } from "react";
import { ConfirmAction, ErrorBlock } from "@/components/ui";
import { bestRole, roleAtLeast, useMe } from "@/lib/access";
import { formatRelative, pluralize } from "@/lib/format";
import { trpc } from "@/lib/trpc";
import { KIND_LABELS, STATE_LABELS, requestHref, runHref, savedBy, type MemoryItem } from "./format";

const STATE_STYLE: Record<string, { background: string; color: string }> = {
  active: { background: "var(--green-soft)", color: "var(--green)" },
  pending: { background: "var(--amber-soft)", color: "var(--amber)" },
  rejected: { background: "var(--red-soft)", color: "var(--red)" },
};

export function MemoryCard({ memory: m }: { memory: MemoryItem }) {
  const { me } = useMe();
  const canEdit = roleAtLeast(bestRole(me), "operator");
  const utils = trpc.useUtils();
  const done = { onSettled: () => void utils.memories.list.invalidate() };
  const update = trpc.memories.update.useMutation(done);
  const pin = trpc.memories.pin.useMutation(done);
  const remove = trpc.memories.delete.useMutation(done);
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState(m.title);
  const [text, setText] = useState(m.text);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const why = canEdit ? undefined : "Changing memories needs the operator role";
  const error = update.error ?? pin.error;

  function startEdit() {
    setTitle(m.title);
    setText(m.text);
    update.reset();
    setEditing(true);
  }

  function save() {
    update.mutate({ id: m.id, title, text }, { onSuccess: () => setEditing(false) });
  }

  return (
    <article
      className="card"
      style={{ padding: 16 }}
      aria-label={m.title}
      data-testid="memory-row"
      data-id={m.id}
      data-state={m.state}
      data-pinned={m.pinned ? "true" : "false"}
    >
      <div className="row" style={{ gap: 8, flexWrap: "wrap", alignItems: "center" }}>
        {m.pinned && (
          <span
            className="badge"
            style={{ background: "var(--accent-soft)", color: "var(--accent)" }}
            title="Loaded first into every run in its scope"
          >
            Pinned
          </span>
        )}
        <span className="badge badge-outline" data-testid="memory-kind">
          {KIND_LABELS[m.kind] ?? m.kind}
        </span>
        <span
          className="badge badge-outline"
          title={m.scope === "team" ? "Every agent of its team loads it" : `Only ${m.agentName} loads it`}
          data-testid="memory-scope"
        >
          {m.scope === "team" ? "Team" : `Agent: ${m.agentName}`}
        </span>
        {m.origin === "scenario" && (
          <span
            className="badge badge-outline"
            title="Saved by a run playing its launcher's script: a person's words, not the agent's. Other runs load it only if the team shares scenario memories."
            data-testid="memory-origin"
          >
            From a scenario
          </span>
        )}
        {m.state !== "active" && (
          <span className="badge" style={STATE_STYLE[m.state]} data-testid="memory-state">
            {STATE_LABELS[m.state] ?? m.state}
          </span>
        )}
        <span className="spacer" />
        <span className="small muted">
          Used {pluralize(m.uses, "time")}
          {m.lastUsedAt ? `, last ${formatRelative(m.lastUsedAt)}` : ""} · saved by {savedBy(m.createdBy)} {formatRelative(m.createdAt)}
          {m.sourceRunId && (
            <>
              {" "}
              ·{" "}
              <Link href={runHref(m.sourceRunId)} data-testid="memory-source-run">
                source run
              </Link>
            </>
          )}
        </span>
      </div>
      {editing ? (
        <form
          className="stack"
          style={{ marginTop: 12 }}
          onSubmit={(e) => {
            e.preventDefault();
            save();
          }}
          onKeyDown={(e) => {
            if (e.key === "Escape") setEditing(false);
          }}
        >
          <label className="field">
            <span className="label">Title</span>
            <input
              className="input"
              value={title}
              maxLength={200}
              onChange={(e) => setTitle(e.target.value)}
              autoFocus
              data-testid="memory-edit-title"
            />
          </label>
          <label className="field">
            <span className="label">Text</span>
            <textarea
              className="input"
              rows={Math.min(12, Math.max(3, text.split("\n").length + 1))}
              value={text}
              maxLength={2000}
              onChange={(e) => setText(e.target.value)}
              data-testid="memory-edit-text"
            />
            <span className="small muted">{text.length} / 2,000 characters</span>
          </label>
          <ErrorBlock error={update.error} />
          <div className="row" style={{ gap: 8 }}>
            <button
              type="submit"
              className="btn btn-primary"
              disabled={update.isPending || !title.trim() || !text.trim()}
              data-testid="memory-save"
            >
              {update.isPending ? "Saving…" : "Save"}
            </button>
            <button type="button" className="btn" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <>
          <h2 style={{ fontSize: 15, margin: "10px 0 4px" }} data-testid="memory-title">
            {m.title}
          </h2>
          <p style={{ whiteSpace: "pre-wrap", margin: 0 }} data-testid="memory-text">
            {m.text}
          </p>
          <ErrorBlock error={error} style={{ marginTop: 8 }} />
          <div className="row" style={{ gap: 8, marginTop: 12, flexWrap: "wrap" }}>
            {m.state === "pending" && (
              <>
                <button
                  type="button"
                  className="btn btn-primary"
                  disabled={!canEdit || update.isPending}
                  title={why}
                  onClick={() => update.mutate({ id: m.id, state: "active" })}
                  data-testid="memory-keep"
                >
                  Keep
                </button>
                <button
                  type="button"
                  className="btn"
                  disabled={!canEdit || update.isPending}
                  title={why}
                  onClick={() => update.mutate({ id: m.id, state: "rejected" })}
                  data-testid="memory-discard"
                >
                  Discard
                </button>
                {m.requestId && (
                  <Link href={requestHref(m.requestId)} className="small">
                    Its request in the Inbox
                  </Link>
                )}
              </>
            )}
            <button type="button" className="btn" disabled={!canEdit} title={why} onClick={startEdit} data-testid="memory-edit">
              Edit
            </button>
            <button
              type="button"
              className="btn"
              aria-pressed={m.pinned}
              disabled={!canEdit || pin.isPending}
              title={why ?? (m.pinned ? "Stop loading it first" : "Load it first into every run in its scope")}
              onClick={() => pin.mutate({ id: m.id, pinned: !m.pinned })}
              data-testid="memory-pin"
            >
              {m.pinned ? "Unpin" : "Pin"}
            </button>
            <button
              type="button"
              className="btn btn-danger"
              disabled={!canEdit}
              title={why}
              onClick={() => setConfirmDelete(true)}
              data-testid="memory-delete"
            >
              Delete
            </button>
          </div>
        </>
      )}
      <ConfirmAction
        open={confirmDelete}
        title="Delete this memory?"
        confirmLabel="Delete"
        action={remove}
        onConfirm={() => remove.mutate({ id: m.id }, { onSuccess: () => setConfirmDelete(false) })}
        onClose={() => setConfirmDelete(false)}
      >
        “{m.title}” will no longer load into runs or come back from recall. This cannot be undone.
      </ConfirmAction>
    </article>
  );
}
