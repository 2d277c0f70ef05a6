import type { Metadata } from "next";
import { NewSkillButton, SkillsList } from "@/components/skills/skills-list";

export const metadata: Metadata = { title: "Skills" };

export default function Page() {
  return (
    <div className="page page-wide" data-testid="skills-page">
      <div className="page-header">
        <div className="page-title-block">
          <h1>Skills</h1>
          <p>
            SKILL.md files agents load on demand: people write them here, Rein&apos;s improver proposes them through a review. Each run
            lists the skills in its scope in its prompt.
          </p>
        </div>
        <NewSkillButton />
      </div>
      <SkillsList />
    </div>
  );
}
