import type { Metadata } from "next";
import { TeamPage } from "@/components/teams/team-page";

export const metadata: Metadata = { title: "Team" };

export default async function Page({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <TeamPage id={id} />;
}
