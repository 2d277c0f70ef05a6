"use client";
// The views of Improvements: the list, Friction and Overview (tabs of one page) and
// Changes (pages of their own, linked like tabs).
import Link from "next/link";
import styles from "./improvements.module.css";

export type ImprovementsView = "list" | "friction" | "overview" | "changes";

const VIEWS: { id: ImprovementsView; label: string; href: string }[] = [
  { id: "list", label: "Improvements", href: "/improvements" },
  { id: "friction", label: "Friction", href: "/improvements?tab=friction" },
  { id: "overview", label: "Overview", href: "/improvements?tab=overview" },
  { id: "changes", label: "Changes", href: "/improvements/changes" },
];

/** `onSelect` switches in place (the list page); without it every view is a link. */
export function ImprovementsTabs({
  current,
  onSelect,
}: {
  current: ImprovementsView;
  onSelect?(view: Exclude<ImprovementsView, "changes">): void;
}) {
  return (
    <nav className="run-tabs" aria-label="Improvements views" style={{ marginBottom: 16 }}>
      {VIEWS.map((v) =>
        onSelect && v.id !== "changes" ? (
          <button
            key={v.id}
            type="button"
            className={`run-tab ${styles.viewTab}`}
            aria-current={current === v.id ? "page" : undefined}
            onClick={() => onSelect(v.id as Exclude<ImprovementsView, "changes">)}
            data-testid={`improvements-tab-${v.id}`}
          >
            {v.label}
          </button>
        ) : (
          <Link
            key={v.id}
            href={v.href}
            className={`run-tab ${styles.viewTab}`}
            aria-current={current === v.id ? "page" : undefined}
            data-testid={`improvements-tab-${v.id}`}
          >
            {v.label}
          </Link>
        ),
      )}
    </nav>
  );
}
