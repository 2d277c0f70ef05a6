import type { Metadata } from "next";
import { PricesPage } from "@/components/prices/prices-page";

export const metadata: Metadata = { title: "Model prices" };

export default function Page() {
  return <PricesPage />;
}
