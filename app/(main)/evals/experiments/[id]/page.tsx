import type { Metadata } from "next";
import { ExperimentPage } from "@/components/evals/experiment-page";

export const metadata: Metadata = { title: "Experiment · Evals" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <ExperimentPage id={decodeURIComponent(id)} />;
}
