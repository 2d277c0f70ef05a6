"use client";
import Link from "next/link";
import { Fragment, useState } from "react";
import { prettyJson } from "@/components/json-block";
import { formatDateTime, formatRelative } from "@/lib/format";
import type { RouterOutputs } from "@/lib/trpc";
import styles from "./audit.module.css";

export type AuditEntryView = RouterOutputs["audit"]["list"]["entries"][number];
export type AuditPeople = NonNullable<RouterOutputs["audit"]["list"]["people"]>;
export type AuditTeams = NonNullable<RouterOutputs["audit"]["list"]["teams"]>;

/** A person by name, their e-mail on hover; an id that is no person (an agent, "system") as it was recorded. */
function Person({ id, name, people, testId }: { id: string | null; name?: string | null; people: AuditPeople; testId: string }) {
  if (!id) return <span className="muted">—</span>;
  const person = people[id];
  if (person) {
    return (
      <span title={person.email} data-testid={testId} data-email={person.email}>
        {person.name || person.email}
      </span>
    );
  }
  return (
    <span title={id} data-testid={testId}>
      {name || id}
    </span>
  );
}

/** "request.transition" → "Request transition": a kind as words (its code on hover). */
export function kindWords(kind: string): string {
  const words = kind.replace(/[._]+/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** "waiting_human" → "waiting for a person", "APPROVED" → "approved": a state as words. */
export function stateWords(state: string): string {
  if (state === "waiting_human") return "waiting for a person";
  return state.toLowerCase().replace(/_+/g, " ");
}

function Cell({ value, mono = false }: { value: string | null; mono?: boolean }) {
  if (!value) return <span className="muted">—</span>;
  return mono ? (
    <code className={styles.id} title={value}>
      {value}
    </code>
  ) : (
    <>{value}</>
  );
}

export function AuditTable({
  entries,
  people,
  teams,
  now,
}: {
  entries: AuditEntryView[];
  people: AuditPeople;
  teams: AuditTeams;
  now: number;
}) {
  const [open, setOpen] = useState<Set<number>>(() => new Set());
  const toggle = (id: number) =>
    setOpen((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  return (
    <div className="table-wrap">
      <table className="table" data-testid="audit-table">
        <thead>
          <tr>
            <th>Time</th>
            <th>Kind</th>
            <th>Actor</th>
            <th>On behalf of</th>
            <th>Channel</th>
            <th>Run · team</th>
            <th>Request</th>
            <th>Subject</th>
            <th>From → to</th>
            <th>
              <span className="sr-only">Detail</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => {
            const expanded = open.has(e.id);
            const hasDetail = Object.keys(e.detail).length > 0;
            return (
              <Fragment key={e.id}>
                <tr data-testid="audit-row" data-list-row data-kind={e.kind} data-entry-id={e.id}>
                  <td className="nowrap" title={formatDateTime(e.at)}>
                    {formatRelative(e.at, now)}
                  </td>
                  <td className="nowrap">
                    <span className="tag" title={e.kind} data-testid="audit-kind-words">
                      {kindWords(e.kind)}
                    </span>
                  </td>
                  <td>
                    <Person id={e.actorId} name={e.actorName} people={people} testId="audit-actor" />
                  </td>
                  <td>
                    <Person id={e.onBehalfOf} people={people} testId="audit-on-behalf" />
                  </td>
                  <td>
                    <Cell value={e.channel} />
                  </td>
                  <td>
                    {e.runId ? (
                      <Link href={`/runs/${e.runId}`} className={styles.id} title={e.runId}>
                        {e.runId}
                      </Link>
                    ) : (
                      !e.teamId && <span className="muted">—</span>
                    )}
                    {e.teamId && (
                      <div className="small muted" title={e.teamId} data-testid="audit-team">
                        {teams[e.teamId] ?? e.teamId}
                      </div>
                    )}
                  </td>
                  <td>
                    <Cell value={e.requestId} mono />
                  </td>
                  <td className={styles.subject}>
                    <Cell value={e.subject} />
                  </td>
                  <td className="nowrap">
                    {e.fromState || e.toState ? (
                      <>
                        <span title={e.fromState ?? undefined}>{e.fromState ? stateWords(e.fromState) : "—"}</span> →{" "}
                        <strong title={e.toState ?? undefined} data-testid="audit-to-state">
                          {e.toState ? stateWords(e.toState) : "—"}
                        </strong>
                      </>
                    ) : (
                      <span className="muted">—</span>
                    )}
                  </td>
                  <td style={{ textAlign: "right" }}>
                    {hasDetail && (
                      <button
                        type="button"
                        className="btn btn-ghost btn-sm"
                        aria-expanded={expanded}
                        onClick={() => toggle(e.id)}
                        data-list-open
                        data-testid="audit-detail-toggle"
                      >
                        {expanded ? "Hide" : "Detail"}
                      </button>
                    )}
                  </td>
                </tr>
                {expanded && (
                  <tr className={styles.detailRow}>
                    <td colSpan={10}>
                      <pre className="code-block light" data-testid="audit-detail">
                        {prettyJson(e.detail)}
                      </pre>
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
