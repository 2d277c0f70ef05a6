import type { Metadata } from "next";
import { AgentEditorPage } from "@/components/agents/agent-editor";

export const metadata: Metadata = { title: "New agent" };

export default function Page() {
  return <AgentEditorPage />;
}
