import type { Metadata } from "next";
import { ChangesList } from "@/components/changes/changes-list";
import { ImprovementsTabs } from "@/components/improvements/improvements-tabs";

export const metadata: Metadata = { title: "Changes · Improvements" };

export default function Page() {
  return (
    <div className="page page-wide" data-testid="changes-page">
      <div className="page-header">
        <div className="page-title-block">
          <h1>Improvements</h1>
          <p>Reviewed changes to repositories: an agent proposes, the tests decide whether it may be reviewed, a person merges.</p>
        </div>
      </div>
      <ImprovementsTabs current="changes" />
      <ChangesList />
    </div>
  );
}
