"use client";
// Evals (/evals, docs/evals.md#the-evals-page): the experiments that run a
// dataset as real runs, above the datasets that say what a good run is.
import { DatasetsSection } from "./datasets-section";
import { ExperimentsSection } from "./experiments-section";

export function EvalsPage() {
  return (
    <div className="page page-wide" data-testid="evals-page">
      <div className="page-header">
        <div className="page-title-block" style={{ flex: 1 }}>
          <h1>Evals</h1>
          <p>Experiments run a dataset&apos;s goals as real runs and score them; datasets say what a good run is.</p>
        </div>
      </div>
      <ExperimentsSection />
      <DatasetsSection />
    </div>
  );
}
