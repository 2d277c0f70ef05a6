import type { Metadata } from "next";
import { MemoryList } from "@/components/memory/memory-list";
import { ScenarioSharing } from "@/components/memory/scenario-sharing";

export const metadata: Metadata = { title: "Memory" };

export default function Page() {
  return (
    <div className="page page-wide" data-testid="memory-page">
      <div className="page-header">
        <div className="page-title-block">
          <h1>Memory</h1>
          <p>
            What agents keep between runs: facts, procedures and preferences they save with <code>remember</code>, and an episode of every
            run. Runs load the pinned and the most relevant ones into their prompt within their agent&apos;s memory budget; each run page
            lists which.
          </p>
        </div>
      </div>
      <ScenarioSharing />
      <MemoryList />
    </div>
  );
}
