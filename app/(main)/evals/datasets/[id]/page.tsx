import type { Metadata } from "next";
import { DatasetPage } from "@/components/evals/dataset-page";

export const metadata: Metadata = { title: "Dataset · Evals" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <DatasetPage id={decodeURIComponent(id)} />;
}
