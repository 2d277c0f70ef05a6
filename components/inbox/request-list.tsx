"use client";
// The inbox's left pane: one row per request, newest first.
import { useEffect, useRef } from "react";
import { formatDateTime, formatRelative } from "@/lib/format";
import styles from "./inbox.module.css";
import { InlineCode } from "./inline-code";
import { EscalatedMarker, KindChip, RequestStateBadge, TimeLeft } from "./request-badges";
import type { HumanRequestView } from "./types";

export function RequestList({
  items,
  selectedId,
  now,
  onSelect,
}: {
  items: HumanRequestView[];
  selectedId: string | null;
  now: number;
  onSelect(id: string): void;
}) {
  const refs = useRef<Record<string, HTMLLIElement | null>>({});
  useEffect(() => {
    if (selectedId) refs.current[selectedId]?.scrollIntoView({ block: "nearest" });
  }, [selectedId]);

  return (
    <ul className={styles.list} role="listbox" aria-label="Human requests" data-testid="inbox-list">
      {items.map((r) => (
        <li
          key={r.id}
          ref={(el) => void (refs.current[r.id] = el)}
          role="option"
          aria-selected={r.id === selectedId}
          className={styles.item}
          onClick={() => onSelect(r.id)}
          data-testid="inbox-item"
          data-id={r.id}
          data-kind={r.kind}
          data-state={r.state}
          data-may-decide={r.you.mayDecide}
        >
          <div className={styles.itemTop}>
            <KindChip kind={r.kind} />
            <span className={styles.itemTitle} title={r.title} data-testid="inbox-item-title">
              <InlineCode text={r.title} />
            </span>
            <RequestStateBadge request={r} />
          </div>
          {r.run && (
            <div className={styles.itemRun} title={r.run.goal}>
              {r.run.goal} <span className="muted">· {r.run.agentName}</span>
            </div>
          )}
          <div className={styles.itemMeta}>
            {r.teamName && (
              <>
                <span data-testid="inbox-item-team" title="The run's team">
                  {r.teamName}
                </span>
                <span aria-hidden="true">·</span>
              </>
            )}
            <span>{r.requestedBy ? `launched by ${r.requestedBy.name}` : "launched by —"}</span>
            <span aria-hidden="true">·</span>
            <span title={formatDateTime(r.createdAt)}>{formatRelative(r.createdAt, now)}</span>
            <span className="spacer" />
            {r.you.whyNot && (
              <span className="badge badge-outline" title={r.you.whyNot} data-testid="inbox-item-view-only">
                for someone else
              </span>
            )}
            <EscalatedMarker level={r.level} />
            <TimeLeft request={r} now={now} />
          </div>
        </li>
      ))}
    </ul>
  );
}
