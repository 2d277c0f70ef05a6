"use client";
// Improvements: the list of every improvement, the friction that starts them
// (or is kept as a signal), and an Overview of the loop (the change requests
// to repositories have pages of their own). The tab is in the address.
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { FrictionList } from "./friction-list";
import { ImprovementsList } from "./improvements-list";
import { ImprovementsTabs } from "./improvements-tabs";
import { ImprovementsOverview } from "./overview";

export function ImprovementsPage() {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const asked = params.get("tab");
  const tab = asked === "overview" || asked === "friction" ? asked : "list";
  const setTab = (t: "list" | "overview" | "friction") =>
    router.replace(t === "list" ? pathname : `${pathname}?tab=${t}`, { scroll: false });
  const frictionId = params.get("friction") ?? undefined;
  return (
    <>
      <ImprovementsTabs current={tab} onSelect={setTab} />
      {tab === "list" ? <ImprovementsList frictionId={frictionId} /> : tab === "friction" ? <FrictionList /> : <ImprovementsOverview />}
    </>
  );
}
