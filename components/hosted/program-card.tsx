"use client";
// One hosted program's card: what it is, whether it can run here, what it
// speaks and who uses it; Install and Test for admins, each with its outcome
// said in words.
import Link from "next/link";
import { ErrorBlock } from "@/components/ui";
import { trpc, type RouterOutputs } from "@/lib/trpc";
import styles from "./hosted.module.css";

type Program = RouterOutputs["hosted"]["list"]["programs"][number];

export function ProgramCard({ program: p, isAdmin }: { program: Program; isAdmin: boolean }) {
  const utils = trpc.useUtils();
  const install = trpc.hosted.install.useMutation({ onSettled: () => void utils.hosted.list.invalidate() });
  const test = trpc.hosted.test.useMutation();
  const installing = p.install?.state === "installing" || install.isPending;
  const titleId = `hosted-${p.id}-title`;
  return (
    <section className="card" aria-labelledby={titleId} data-testid="hosted-program" data-program={p.id}>
      <div className={`card-header ${styles.header}`}>
        <h2 id={titleId}>{p.name}</h2>
        <span className={styles.source} data-testid="hosted-source">
          {p.package ? (
            <code>
              {p.package.name}@{p.package.version}
            </code>
          ) : (
            "comes with Rein"
          )}
        </span>
        <span
          className={`badge ${p.installed ? "status-succeeded" : "status-canceled"}`}
          style={{ marginLeft: "auto" }}
          data-testid="hosted-installed"
          data-installed={p.installed}
        >
          <span className="badge-dot" aria-hidden="true" />
          {p.installed ? "installed" : "not installed"}
        </span>
      </div>
      <div className="card-body">
        <p style={{ margin: 0 }}>{p.description}</p>
        <dl className={styles.facts}>
          {!p.installed && p.notInstalledReason && (
            <>
              <dt>Why it cannot run</dt>
              <dd data-testid="hosted-missing">{p.notInstalledReason}</dd>
            </>
          )}
          <dt>Its model calls</dt>
          <dd>{p.protocols.map((x) => x.name).join(", ")}, through Rein&apos;s gateway</dd>
          <dt>Reloads a session after a restart</dt>
          <dd data-testid="hosted-sessions">{p.loadsSessions ? "yes (session/load)" : "no: Rein pauses its run instead"}</dd>
          <dt>Its commands</dt>
          <dd data-testid="hosted-commands">
            {p.commands === "relay"
              ? "it runs bash -c itself; Rein's shell relay runs each at the pod's prompt (Terminal tab)"
              : "through Rein's terminal, at the pod's prompt (Terminal tab)"}
          </dd>
          <dt>Agents using it</dt>
          <dd data-testid="hosted-agents">
            {p.agents.length === 0 ? (
              <span className="muted">None yet</span>
            ) : (
              <span className={styles.agents}>
                {p.agents.map((name) => (
                  <Link key={name} href={`/agents/${encodeURIComponent(name)}`} className="mono">
                    {name}
                  </Link>
                ))}
              </span>
            )}
          </dd>
        </dl>
        <InstallOutcome program={p} />
        <ErrorBlock error={install.error} prefix="Could not start the install" className={styles.outcome} testId="hosted-install-error" />
        <ErrorBlock error={test.error} prefix="Could not test the program" className={styles.outcome} testId="hosted-test-error" />
        {test.data &&
          (test.data.ok ? (
            <div className={`alert alert-info ${styles.outcome}`} role="status" data-testid="hosted-test-result" data-ok="true">
              {test.data.summary}
            </div>
          ) : (
            <ErrorBlock message={test.data.summary} className={styles.outcome} testId="hosted-test-result" />
          ))}
      </div>
      {isAdmin && (
        <div className={styles.actions}>
          {p.package && !p.installed && (
            <button
              type="button"
              className="btn btn-primary"
              onClick={() => install.mutate({ id: p.id })}
              disabled={installing}
              data-testid="hosted-install"
            >
              {installing && <span className="spinner" aria-hidden="true" />}
              {installing ? "Installing…" : "Install"}
            </button>
          )}
          <button
            type="button"
            className="btn"
            onClick={() => test.mutate({ id: p.id })}
            disabled={test.isPending || installing}
            title="Start the program in a throwaway sandbox and ask it the protocol's first question"
            data-testid="hosted-test"
          >
            {test.isPending && <span className="spinner" aria-hidden="true" />}
            {test.isPending ? "Testing…" : "Test"}
          </button>
          {test.isPending && (
            <span className="small muted" role="status">
              Starting {p.name} in the sandbox; this takes up to 20 seconds.
            </span>
          )}
        </div>
      )}
    </section>
  );
}

/** The latest install: its progress while it runs, then how it ended. */
function InstallOutcome({ program: p }: { program: Program }) {
  const i = p.install;
  if (!i) return null;
  if (i.state === "installing")
    return (
      <div className={`${styles.progress} ${styles.outcome}`} role="status" aria-live="polite" data-testid="hosted-install-progress">
        <span className="spinner" aria-hidden="true" />
        {i.message} Started by {i.by}.
      </div>
    );
  if (i.state === "failed") return <ErrorBlock message={i.message} className={styles.outcome} testId="hosted-install-outcome" />;
  return (
    <div className={`alert alert-info ${styles.outcome}`} role="status" data-testid="hosted-install-outcome">
      {i.message}, by {i.by}.
    </div>
  );
}
