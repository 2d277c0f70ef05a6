"use client";
// Traces (docs/traces-and-costs.md#traces-the-list-of-runs): two views, kept in
// the address so links keep working: the list of traces, one row per run (the
// default), and the search across spans (?view=spans).
import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";
import { SpansView } from "./spans-view";
import { TraceListView } from "./trace-list-view";
import styles from "./traces.module.css";

const VIEWS = [
  { id: "traces", label: "Traces", href: (path: string) => path },
  { id: "spans", label: "Spans", href: (path: string) => `${path}?view=spans` },
] as const;

export function TracesPage() {
  const params = useSearchParams();
  const pathname = usePathname() ?? "/traces";
  const view = params.get("view") === "spans" ? "spans" : "traces";
  return (
    <div className="page page-wide">
      <div className="page-header">
        <div className="page-title-block">
          <h1>Traces</h1>
          <p>Every run&apos;s trace: what it did, how long it took, what it cost. Open one to see its spans.</p>
        </div>
      </div>
      <nav className={styles.tabs} aria-label="Traces views">
        {VIEWS.map((v) => (
          <Link
            key={v.id}
            href={v.href(pathname)}
            className={styles.tab}
            aria-current={view === v.id ? "page" : undefined}
            data-testid={`traces-view-${v.id}`}
          >
            {v.label}
          </Link>
        ))}
      </nav>
      {view === "spans" ? <SpansView /> : <TraceListView />}
    </div>
  );
}
