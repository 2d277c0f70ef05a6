"use client";
// The run's recent events in one line each, for deciding with context; it
// opens scrolled to the newest.
import { useLayoutEffect, useRef, type ReactNode } from "react";
import { HandIcon } from "@/components/icons";
import { callSummary } from "@/components/run/tool-events";
import { decidedText } from "@/components/run/human-events";
import { STATUS_LABELS, formatClock, formatDateTime } from "@/lib/format";
import type { RunEventPayloads } from "@/lib/run-events";
import { InlineCode } from "./inline-code";
import styles from "./inbox.module.css";
import type { RequestTimeline } from "./types";

type Line = { icon: ReactNode; text: string; tone?: "human" | "error" };

function describe(type: string, payload: unknown): Line {
  const p = payload as Record<string, unknown>;
  switch (type) {
    case "run.created":
      return { icon: "✦", text: `Run created: ${(p as RunEventPayloads["run.created"]).agent}` };
    case "run.state": {
      const s = p as RunEventPayloads["run.state"];
      const to = STATUS_LABELS[s.to] ?? s.to;
      return {
        icon: "•",
        text: `${s.from ? `${STATUS_LABELS[s.from] ?? s.from} → ` : ""}${to}${s.error ? `: ${s.error.message}` : s.reason ? ` (${s.reason})` : ""}`,
        tone: s.error ? "error" : undefined,
      };
    }
    case "model.turn": {
      const t = p as RunEventPayloads["model.turn"];
      return {
        icon: "◆",
        text: t.text.trim().split("\n")[0] || `${t.agent} called ${t.toolCalls.map((c) => c.tool).join(", ") || "nothing"}`,
      };
    }
    case "tool.call": {
      const c = p as RunEventPayloads["tool.call"];
      const question = c.tool === "ask_human" ? (c.args as { question?: unknown } | null)?.question : undefined;
      const summary = typeof question === "string" ? question : callSummary(c.tool, c.args);
      return { icon: "ƒ", text: `${c.tool}${summary ? ` ${summary}` : ""}` };
    }
    case "tool.result": {
      const r = p as RunEventPayloads["tool.result"];
      return r.ok
        ? { icon: "✓", text: `${r.tool} ok` }
        : { icon: "✕", text: `${r.tool}: ${r.error?.code ?? "error"} ${r.error?.message ?? ""}`, tone: "error" };
    }
    case "human.requested":
      return { icon: <HandIcon />, text: `Asked a person: ${(p as RunEventPayloads["human.requested"]).title}`, tone: "human" };
    case "human.decided":
      return { icon: <HandIcon />, text: decidedText(p as RunEventPayloads["human.decided"]), tone: "human" };
    case "human.escalated":
      return { icon: "⇡", text: `Escalated to level ${(p as RunEventPayloads["human.escalated"]).level}`, tone: "human" };
    case "terminal.attached":
      return { icon: "•", text: "Terminal ready" };
    case "tasks.updated":
      return { icon: "☑", text: "Task list updated" };
    case "run.control": {
      const c = p as RunEventPayloads["run.control"];
      return { icon: "•", text: `${c.action} by ${c.byName}` };
    }
    default:
      return { icon: "•", text: type };
  }
}

export function CompactTimeline({ events }: { events: RequestTimeline }) {
  const list = useRef<HTMLOListElement>(null);
  const last = events.length ? events[events.length - 1].seq : 0;
  useLayoutEffect(() => {
    if (list.current) list.current.scrollTop = list.current.scrollHeight;
  }, [last]);
  if (events.length === 0) return <p className="muted small">The run has no events yet.</p>;
  return (
    <ol ref={list} className={styles.miniTimeline} data-testid="request-timeline" aria-label="The run's recent events">
      {events.map((e) => {
        const line = describe(e.type, e.payload);
        return (
          <li
            key={e.seq}
            className={`${styles.miniEvent}${line.tone === "human" ? ` ${styles.miniHuman}` : line.tone === "error" ? ` ${styles.miniError}` : ""}`}
            data-type={e.type}
          >
            <time
              className={styles.miniTime}
              dateTime={new Date(e.createdAt).toISOString()}
              title={`#${e.seq} · ${formatDateTime(e.createdAt)}`}
            >
              {formatClock(e.createdAt)}
            </time>
            <span className={styles.miniIcon} aria-hidden="true">
              {line.icon}
            </span>
            <span className={styles.miniText} title={line.text}>
              <InlineCode text={line.text} />
            </span>
          </li>
        );
      })}
    </ol>
  );
}
