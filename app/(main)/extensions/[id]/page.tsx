import type { Metadata } from "next";
import { ExtensionPage } from "@/components/extensions/extension-page";

export const metadata: Metadata = { title: "Extension" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <ExtensionPage id={decodeURIComponent(id)} />;
}
