"use client";
// Write a new skill or view and edit one: its SKILL.md in Monaco, checked as
// you type (each problem with its line), saved as a new version; its
// versions with the reviewer's verdict for those the improver proposed, the
// runs that loaded it, and Disable / Enable by role.
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { EmptyState, PageShell, Skeleton } from "@/components/ui";
import { bestRole, roleAtLeast, useMe } from "@/lib/access";
import { errorCode, errorMessage } from "@/lib/errors";
import { formatDateTime, pluralize } from "@/lib/format";
import { trpc } from "@/lib/trpc";
import { VersionedTitle } from "@/components/improvements/versioned-title";
import { SkillActions } from "./skill-actions";
import { SkillEditor } from "./skill-editor";
import { SkillHistory } from "./skill-history";
import { SkillStateBadge } from "./state-badge";
import { outcomeText, SKILL_TEMPLATE, scopeText, skillHref, type SkillDetail } from "./format";
import { useSkillValidation, type SkillValidation } from "./use-skill-validation";
import styles from "@/components/improvements/improvements.module.css";

export function SkillPage({ name }: { name: string | null }) {
  const q = trpc.skills.get.useQuery(
    { name: name ?? "" },
    { enabled: name !== null, retry: (n, err) => errorCode(err) !== "NOT_FOUND" && n < 2 },
  );
  if (name === null) return <SkillWorkbench skill={null} />;
  return (
    <PageShell
      query={q}
      loading={
        <div className="page page-wide">
          <Skeleton width={280} height={28} />
        </div>
      }
      failed="Could not load the skill"
      notFound={() => (
        <EmptyState
          icon="?"
          title="No such skill"
          action={
            <Link href="/skills" className="btn">
              All skills
            </Link>
          }
        >
          It was never saved, or it was made for a team you are not in.
        </EmptyState>
      )}
      frame={(problem) => <div className="page page-wide">{problem}</div>}
    >
      {(skill) => <SkillWorkbench key={skill.name} skill={skill} />}
    </PageShell>
  );
}

function SkillWorkbench({ skill }: { skill: SkillDetail | null }) {
  const router = useRouter();
  const utils = trpc.useUtils();
  const { me } = useMe();
  const initial = skill?.current.source ?? SKILL_TEMPLATE;
  const [draft, setDraft] = useState(initial);
  const [saved, setSaved] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const validation = useSkillValidation(draft);
  const save = trpc.skills.save.useMutation({
    onMutate: () => setError(null),
    onSuccess: (s, input) => {
      setSaved(input.text);
      void utils.skills.list.invalidate();
      utils.skills.get.setData({ name: s.name }, s);
      if (s.name !== skill?.name) router.push(skillHref(s.name));
    },
    onError: (err) => setError(errorMessage(err)),
  });
  const saveWhy = !roleAtLeast(bestRole(me), "operator")
    ? "Writing a skill needs the operator role"
    : validation.state.status === "invalid"
      ? "Fix the problems first"
      : draft === saved && skill
        ? "No changes to save"
        : null;
  const doSave = () => !saveWhy && !save.isPending && save.mutate({ text: draft });

  return (
    <div className="page page-wide" data-testid="skill-page" data-name={skill?.name ?? ""} data-version={skill?.current.version ?? 0}>
      <Header skill={skill} />
      <section className="card" aria-labelledby="skill-md-title">
        <div className="card-header">
          <h2 id="skill-md-title">SKILL.md</h2>
          <ValidationStatus state={validation.state} />
          <button
            type="button"
            className="btn btn-primary"
            disabled={!!saveWhy || save.isPending}
            title={saveWhy ?? "Save as a new version, active at once (Ctrl+S)"}
            onClick={doSave}
            data-testid="skill-save"
          >
            {save.isPending ? "Saving…" : skill ? "Save new version" : "Save"}
          </button>
        </div>
        <SkillEditor
          initialValue={initial}
          problems={validation.problems}
          readOnly={!roleAtLeast(bestRole(me), "operator")}
          onChange={setDraft}
          onSave={doSave}
        />
        {validation.problems.length > 0 && (
          <ul className={styles.cardBody} style={{ margin: 0, paddingLeft: 32 }} data-testid="skill-problems">
            {validation.problems.map((p, n) => (
              <li key={n} className="small" style={{ color: "var(--red)" }} data-testid="skill-problem" data-line={p.line ?? ""}>
                {p.text}
              </li>
            ))}
          </ul>
        )}
        {error && (
          <div className="error-box" role="alert" style={{ margin: "0 16px 16px" }} data-testid="skill-save-error">
            {error}
          </div>
        )}
      </section>
      {skill && <SkillHistory skill={skill} />}
    </div>
  );
}

function ValidationStatus({ state }: { state: SkillValidation }) {
  const text =
    state.status === "checking"
      ? "Checking…"
      : state.status === "ok"
        ? `✓ Valid: ${state.name}`
        : state.status === "invalid"
          ? `✗ ${pluralize(state.problems.length, "problem")}`
          : `Could not check: ${state.message}`;
  const colour =
    state.status === "ok" ? "var(--green)" : state.status === "invalid" || state.status === "failed" ? "var(--red)" : "var(--text-3)";
  return (
    <span
      className="small"
      style={{ color: colour, marginLeft: "auto", marginRight: 12 }}
      role="status"
      data-testid="skill-validation"
      data-status={state.status}
    >
      {text}
    </span>
  );
}

function Header({ skill }: { skill: SkillDetail | null }) {
  if (!skill)
    return (
      <div className="page-header">
        <div className="page-title-block">
          <span className="small muted">
            <Link href="/skills">Skills</Link> ›
          </span>
          <h1>New skill</h1>
          <p>
            Write the SKILL.md below: a name, a description that says what the skill does and when to use it, and the instructions the agent
            loads on demand.
          </p>
        </div>
      </div>
    );
  const c = skill.current;
  return (
    <div className="page-header">
      <div className="page-title-block" style={{ flex: 1 }}>
        <VersionedTitle
          back={{ href: "/skills", label: "Skills" }}
          name={skill.name}
          version={c.version}
          badges={<SkillStateBadge state={c.state} />}
          description={c.description}
          stateReason={c.stateReason}
          testId="skill-title"
        />
        <dl className={styles.facts}>
          <div>
            <dt>Scope</dt>
            <dd>{scopeText(c.scope)}</dd>
          </div>
          {c.tags.length > 0 && (
            <div>
              <dt>Tags</dt>
              <dd>{c.tags.join(", ")}</dd>
            </div>
          )}
          <div>
            <dt>Loads</dt>
            <dd>{skill.useCount}</dd>
          </div>
          <div title="Ended runs that loaded it, against ended runs in its scope that did not">
            <dt>Success</dt>
            <dd data-testid="skill-outcomes">
              loaded {outcomeText(skill.loaded)} vs not {outcomeText(skill.notLoaded)}
            </dd>
          </div>
          <div>
            <dt>Updated</dt>
            <dd>{formatDateTime(skill.versions[0]?.createdAt)}</dd>
          </div>
        </dl>
        {skill.omittedRuns > 0 && (
          <p className="small" style={{ color: "var(--amber)" }} data-testid="skill-omitted">
            ⚠ {pluralize(skill.omittedRuns, "run")} left it out of the prompt: the skills section has a token budget and this one did not
            fit. Shorten descriptions or narrow scopes.
          </p>
        )}
      </div>
      <SkillActions skill={skill} />
    </div>
  );
}
