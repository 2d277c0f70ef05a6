"use client";
// Evals (/evals, SPEC section 13): the datasets that say what a good run is.
// Experiments, which run an agent over a dataset, will have their section
// above the datasets.
import { DatasetsSection } from "./datasets-section";

export function EvalsPage() {
  return (
    <div className="page page-wide" data-testid="evals-page">
      <div className="page-header">
        <div className="page-title-block" style={{ flex: 1 }}>
          <h1>Evals</h1>
          <p>Datasets of goals with their expected outcomes, and the scoring that says what a good run is.</p>
        </div>
      </div>
      <DatasetsSection />
    </div>
  );
}
