import type { Metadata } from "next";
import { ImprovementPage } from "@/components/improvements/improvement-page";

export const metadata: Metadata = { title: "Improvement · Improvements" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <ImprovementPage id={decodeURIComponent(id)} />;
}
