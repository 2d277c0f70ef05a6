import type { Metadata } from "next";
import { CostsPage } from "@/components/costs/costs-page";

export const metadata: Metadata = { title: "Costs" };

export default function Page() {
  return <CostsPage />;
}
