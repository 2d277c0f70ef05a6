import type { Metadata } from "next";
import { HostedPage } from "@/components/hosted/hosted-page";

export const metadata: Metadata = { title: "Hosted agents" };

export default function Page() {
  return <HostedPage />;
}
