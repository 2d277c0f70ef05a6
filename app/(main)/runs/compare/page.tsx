import type { Metadata } from "next";
import { Suspense } from "react";
import { CompareRuns } from "@/components/run/compare-runs";

export const metadata: Metadata = { title: "Compare runs" };

export default function Page() {
  return (
    <Suspense>
      <CompareRuns />
    </Suspense>
  );
}
