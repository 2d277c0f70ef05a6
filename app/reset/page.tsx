import type { Metadata } from "next";
import { Suspense } from "react";
import { AcceptLinkPage } from "@/components/accept-link/accept-link-page";

// The token is in the address: never sent on to another site.
export const metadata: Metadata = { title: "Choose a new password", referrer: "no-referrer" };

// /reset?token=<token>: a single-use password reset link an admin made
// (docs/people-and-teams.md#invitations-and-reset-links). Public like /invite;
// the token is the authority.
export default function Page() {
  return (
    <Suspense>
      <AcceptLinkPage kind="reset" />
    </Suspense>
  );
}
