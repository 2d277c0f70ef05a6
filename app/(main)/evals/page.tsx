import type { Metadata } from "next";
import { EvalsPage } from "@/components/evals/evals-page";

export const metadata: Metadata = { title: "Evals" };

export default function Page() {
  return <EvalsPage />;
}
