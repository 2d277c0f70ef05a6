import type { Metadata } from "next";
import { RunWorkspace } from "@/components/run/run-workspace";

export const metadata: Metadata = { title: "Run" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <RunWorkspace id={decodeURIComponent(id)} />;
}
