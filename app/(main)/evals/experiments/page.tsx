import type { Metadata } from "next";
import Link from "next/link";
import { ExperimentsSection } from "@/components/evals/experiments-section";

export const metadata: Metadata = { title: "Experiments · Evals" };

export default function Page() {
  return (
    <div className="page page-wide" data-testid="experiments-page">
      <div className="page-header">
        <div className="page-title-block">
          <span className="small muted">
            <Link href="/evals">Evals</Link> ›
          </span>
          <h1>Experiments</h1>
          <p>Run a dataset against an agent version and model, see how often it passes, and compare two experiments item by item.</p>
        </div>
      </div>
      <ExperimentsSection />
    </div>
  );
}
