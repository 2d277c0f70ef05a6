"use client";
// Improvements: the list of every improvement, and an Overview of the loop.
import { useSearchParams } from "next/navigation";
import { useState } from "react";
import { ImprovementsList } from "./improvements-list";
import { ImprovementsOverview } from "./overview";

const TABS = [
  { id: "list", label: "Improvements" },
  { id: "overview", label: "Overview" },
] as const;

export function ImprovementsPage() {
  const params = useSearchParams();
  const [tab, setTab] = useState<(typeof TABS)[number]["id"]>(params.get("tab") === "overview" ? "overview" : "list");
  const frictionId = params.get("friction") ?? undefined;
  return (
    <>
      <div className="run-tabs" role="tablist" aria-label="Improvements views" style={{ marginBottom: 16 }}>
        {TABS.map((t) => (
          <button key={t.id} type="button" role="tab" className="run-tab" aria-selected={tab === t.id} onClick={() => setTab(t.id)} data-testid={`improvements-tab-${t.id}`}>
            {t.label}
          </button>
        ))}
      </div>
      {tab === "list" ? <ImprovementsList frictionId={frictionId} /> : <ImprovementsOverview />}
    </>
  );
}
