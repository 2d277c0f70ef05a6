import type { Metadata } from "next";
import { Suspense } from "react";
import { ResumePage } from "@/components/resume/resume-page";

export const metadata: Metadata = { title: "Decide a request" };

// /resume?t=<token>: a signed single-use link to one human request
// (docs/human-requests-and-policy.md#signed-resume-links). The server sends people
// who are not logged in to /login?next=… and back.
export default function Page() {
  return (
    <Suspense>
      <ResumePage />
    </Suspense>
  );
}
