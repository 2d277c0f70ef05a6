import type { Metadata } from "next";
import { Suspense } from "react";
import { AcceptLinkPage } from "@/components/accept-link/accept-link-page";

// The token is in the address: never sent on to another site.
export const metadata: Metadata = { title: "Join Rein", referrer: "no-referrer" };

// /invite?token=<token>: a single-use invitation
// (docs/people-and-teams.md#invitations-and-reset-links). Public: the server
// lets it through without a session; the token is the authority.
export default function Page() {
  return (
    <Suspense>
      <AcceptLinkPage kind="invite" />
    </Suspense>
  );
}
