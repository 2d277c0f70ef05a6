import type { Metadata } from "next";
import { SkillPage } from "@/components/skills/skill-page";

export const metadata: Metadata = { title: "Skill" };

export default async function Page({ params }: { params: Promise<{ name: string }> }) {
  const { name } = await params;
  return <SkillPage name={decodeURIComponent(name)} />;
}
