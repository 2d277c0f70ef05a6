import type { Metadata } from "next";
import { Suspense } from "react";
import { ComparePage } from "@/components/evals/compare-page";

export const metadata: Metadata = { title: "Compare · Evals" };

export default function Page() {
  return (
    <Suspense>
      <ComparePage />
    </Suspense>
  );
}
