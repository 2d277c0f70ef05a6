import type { Metadata } from "next";
import { McpServerPage } from "@/components/mcp/server-page";

export const metadata: Metadata = { title: "MCP server" };

export default async function Page({ params }: { params: Promise<{ name: string }> }) {
  const { name } = await params;
  return <McpServerPage name={decodeURIComponent(name)} />;
}
