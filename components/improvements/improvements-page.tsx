"use client";
// Improvements: the list of every improvement, and an Overview of the loop
// (the change requests to repositories have pages of their own).
import { useSearchParams } from "next/navigation";
import { useState } from "react";
import { ImprovementsList } from "./improvements-list";
import { ImprovementsTabs } from "./improvements-tabs";
import { ImprovementsOverview } from "./overview";

export function ImprovementsPage() {
  const params = useSearchParams();
  const [tab, setTab] = useState<"list" | "overview">(params.get("tab") === "overview" ? "overview" : "list");
  const frictionId = params.get("friction") ?? undefined;
  return (
    <>
      <ImprovementsTabs current={tab} onSelect={setTab} />
      {tab === "list" ? <ImprovementsList frictionId={frictionId} /> : <ImprovementsOverview />}
    </>
  );
}
