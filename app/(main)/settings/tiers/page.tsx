import type { Metadata } from "next";
import { TiersPage } from "@/components/tiers/tiers-page";

export const metadata: Metadata = { title: "Tiers" };

export default function Page() {
  return <TiersPage />;
}
