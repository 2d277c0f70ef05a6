import type { Metadata } from "next";
import { EndpointPage } from "@/components/channels/endpoint-page";

export const metadata: Metadata = { title: "Webhook" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <EndpointPage id={decodeURIComponent(id)} />;
}
