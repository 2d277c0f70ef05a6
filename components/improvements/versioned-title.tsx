// The title block of a page about one version of something Rein improves (a
// runtime tool, a skill, an extension): where it is listed, its name and
// version with its state, what it does, and why it is in its state. Each
// page adds its own facts below.
import Link from "next/link";
import type { ReactNode } from "react";

export function VersionedTitle({
  back,
  name,
  version,
  badges,
  description,
  stateReason,
  testId,
  reasonTestId,
}: {
  back: { href: string; label: string };
  name: string;
  version: string | number;
  badges: ReactNode;
  description?: string | null;
  stateReason?: string | null;
  /** The title's data-testid (e.g. "skill-title"). */
  testId: string;
  reasonTestId?: string;
}) {
  return (
    <>
      <span className="small muted">
        <Link href={back.href}>{back.label}</Link> ›
      </span>
      <h1 className="row" style={{ gap: 10 }}>
        <span data-testid={testId}>
          {name} v{version}
        </span>
        {badges}
      </h1>
      {description && <p>{description}</p>}
      {stateReason && (
        <p className="small muted" data-testid={reasonTestId}>
          {stateReason}
        </p>
      )}
    </>
  );
}
