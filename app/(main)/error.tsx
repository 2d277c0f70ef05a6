"use client";
import { ErrorState } from "@/components/ui";

export default function MainError({ error, reset }: { error: Error; reset(): void }) {
  return (
    <div className="page">
      <div className="card">
        <ErrorState title="This page failed to load" message={error.message || "An unexpected error occurred."} onRetry={reset} />
      </div>
    </div>
  );
}
