"use client";
// The skill library: one row per name at its current version, with how runs
// that loaded it ended against runs in its scope that did not, and a warning
// when runs' prompts left it out for lack of budget.
import Link from "next/link";
import { EmptyState, PageShell, SkeletonRows } from "@/components/ui";
import { bestRole, roleAtLeast, useMe } from "@/lib/access";
import { pluralize } from "@/lib/format";
import { trpc } from "@/lib/trpc";
import { SkillStateBadge } from "./state-badge";
import { outcomeText, runHref, scopeText, skillHref, type SkillSummary } from "./format";
import styles from "@/components/improvements/improvements.module.css";

export const NEW_SKILL_WHY = "Writing a skill needs the operator role";

export function NewSkillButton() {
  const { me } = useMe();
  const why = roleAtLeast(bestRole(me), "operator") ? null : NEW_SKILL_WHY;
  return why ? (
    <button type="button" className="btn btn-primary" disabled title={why} data-testid="skill-new">
      New skill
    </button>
  ) : (
    <Link href="/skills/new" className="btn btn-primary" data-testid="skill-new">
      New skill
    </Link>
  );
}

export function SkillsList() {
  const list = trpc.skills.list.useQuery(undefined, { refetchInterval: 15_000 });
  return (
    <PageShell query={list} loading={<SkeletonRows rows={4} columns={8} />} failed="Could not load the skills">
      {(data) => {
        if (!data.length) return <NoSkills />;
        return (
          <section className="card" aria-label="Skills">
            <div className="table-wrap">
              <table className="table" data-testid="skills-table">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Scope</th>
                    <th scope="col">Tags</th>
                    <th scope="col">State</th>
                    <th scope="col">Author</th>
                    <th scope="col" className="num">
                      Loads
                    </th>
                    <th scope="col" title="Ended runs that loaded it, against ended runs in its scope that did not">
                      Success: loaded vs not
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {data.map((s) => (
                    <Row key={s.name} skill={s} />
                  ))}
                </tbody>
              </table>
            </div>
          </section>
        );
      }}
    </PageShell>
  );
}

function Row({ skill: s }: { skill: SkillSummary }) {
  return (
    <tr data-testid="skill-row" data-list-row data-name={s.name} data-state={s.state} data-version={s.version}>
      <td>
        <Link href={skillHref(s.name)} className={styles.nameLink} data-testid="skill-open">
          {s.name} <span className="muted">v{s.version}</span>
        </Link>
        <div className="small muted">{s.description}</div>
        {s.omittedRuns > 0 && (
          <span
            className="badge"
            style={{ background: "var(--amber-soft)", color: "var(--amber)", marginTop: 4 }}
            title="The skills section of the prompt has a token budget; skills that did not fit were left out, and each run recorded it"
            data-testid="skill-omitted"
          >
            ⚠ left out of {pluralize(s.omittedRuns, "run")}&apos; prompts for lack of budget
          </span>
        )}
      </td>
      <td className="small">{scopeText(s.scope)}</td>
      <td className="small">
        {s.tags.length ? (
          s.tags.map((t) => (
            <span key={t} className="badge badge-outline" style={{ marginRight: 4 }}>
              {t}
            </span>
          ))
        ) : (
          <span className="muted">—</span>
        )}
      </td>
      <td>
        <SkillStateBadge state={s.state} />
      </td>
      <td className="small">{s.authorRunId ? <Link href={runHref(s.authorRunId)}>improver run</Link> : (s.authorName ?? "a person")}</td>
      <td className="num">{s.useCount}</td>
      <td className="small nowrap" data-testid="skill-outcomes">
        {outcomeText(s.loaded)} <span className="muted">vs</span> {outcomeText(s.notLoaded)}
      </td>
    </tr>
  );
}

function NoSkills() {
  return (
    <EmptyState icon="✎" title="No skills yet" action={<NewSkillButton />}>
      A skill is a SKILL.md file: front matter with a <code>name</code> and a <code>description</code>, then a body of instructions in
      markdown. The description says what the skill does and when to use it; it is all an agent sees in its prompt. The body is loaded on
      demand, when the agent calls <code>load_skill</code>. People write skills here; Rein&apos;s improver proposes them too, and a reviewer
      model checks each before it goes live.
    </EmptyState>
  );
}
