import type { Metadata } from "next";
import { SkillPage } from "@/components/skills/skill-page";

export const metadata: Metadata = { title: "New skill" };

export default function Page() {
  return <SkillPage name={null} />;
}
