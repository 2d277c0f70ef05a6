import type { Metadata } from "next";
import { AgentEditorPage } from "@/components/agents/agent-editor";

export async function generateMetadata({ params }: { params: Promise<{ name: string }> }): Promise<Metadata> {
  const { name } = await params;
  return { title: `${decodeURIComponent(name)} · Agents` };
}

export default async function Page({ params }: { params: Promise<{ name: string }> }) {
  const { name } = await params;
  return <AgentEditorPage name={decodeURIComponent(name)} />;
}
