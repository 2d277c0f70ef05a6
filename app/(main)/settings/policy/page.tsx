import type { Metadata } from "next";
import { PolicyPage } from "@/components/policy/policy-page";

export const metadata: Metadata = { title: "Policy" };

export default function Page() {
  return <PolicyPage />;
}
