import type { Metadata } from "next";
import { Suspense } from "react";
import { ImprovementsPage } from "@/components/improvements/improvements-page";
import { SkeletonRows } from "@/components/ui";

export const metadata: Metadata = { title: "Improvements" };

export default function Page() {
  return (
    <div className="page page-wide" data-testid="improvements-page">
      <div className="page-header">
        <div className="page-title-block">
          <h1>Improvements</h1>
          <p>Tools and skills Rein made for itself from the friction in its runs, each tested on trigger cases before it went live.</p>
        </div>
      </div>
      <Suspense fallback={<SkeletonRows rows={4} columns={8} />}>
        <ImprovementsPage />
      </Suspense>
    </div>
  );
}
