import type { Metadata } from "next";
import { ChangePage } from "@/components/changes/change-page";

export const metadata: Metadata = { title: "Change request · Improvements" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <ChangePage id={decodeURIComponent(id)} />;
}
