"use client";
// One extension: its manifest with the capabilities it declares shown
// plainly, what it adds (tools, hooks, skills), its gate's results test by
// test, its files read-only in Monaco, and the actions a person may take.
import Link from "next/link";
import { EmptyState, PageShell, Skeleton } from "@/components/ui";
import { errorCode } from "@/lib/errors";
import { formatDateTime } from "@/lib/format";
import { trpc } from "@/lib/trpc";
import { VersionedTitle } from "@/components/improvements/versioned-title";
import { ExtensionActions } from "./extension-actions";
import { ExtensionFiles } from "./extension-files";
import { CapabilityBadges, ExtensionStateBadge } from "./state-badge";
import { testsText, type ExtensionDetail } from "./format";
import improvementStyles from "@/components/improvements/improvements.module.css";

export function ExtensionPage({ id }: { id: string }) {
  const q = trpc.extensions.get.useQuery({ id }, { retry: (n, err) => errorCode(err) !== "NOT_FOUND" && n < 2 });
  return (
    <PageShell
      query={q}
      loading={
        <div className="page page-wide">
          <Skeleton width={280} height={28} />
        </div>
      }
      failed="Could not load the extension"
      notFound={() => (
        <EmptyState
          icon="?"
          title="No such extension"
          action={
            <Link href="/extensions" className="btn">
              All extensions
            </Link>
          }
        >
          It was never proposed.
        </EmptyState>
      )}
      frame={(problem) => <div className="page page-wide">{problem}</div>}
    >
      {(x) => (
        <div className="page page-wide" data-testid="extension-page" data-name={x.name} data-version={x.version} data-state={x.state}>
          <Header extension={x} />
          <div className={improvementStyles.grid}>
            <Tests extension={x} />
            <Manifest extension={x} />
          </div>
          <section className={`card ${improvementStyles.section}`} aria-labelledby="extension-files-title">
            <div className="card-header">
              <h2 id="extension-files-title">Files</h2>
              <span className="small muted">read-only</span>
            </div>
            <ExtensionFiles files={x.files} />
          </section>
        </div>
      )}
    </PageShell>
  );
}

function Header({ extension: x }: { extension: ExtensionDetail }) {
  return (
    <div className="page-header">
      <div className="page-title-block" style={{ flex: 1 }}>
        <VersionedTitle
          back={{ href: "/extensions", label: "Extensions" }}
          name={x.name}
          version={x.version}
          badges={<ExtensionStateBadge state={x.state} />}
          description={x.description}
          stateReason={x.stateReason}
          testId="extension-title"
          reasonTestId="extension-state-reason"
        />
        <dl className={improvementStyles.facts}>
          <div>
            <dt>Capabilities</dt>
            <dd data-testid="extension-capabilities">
              <CapabilityBadges capabilities={x.capabilities} />
            </dd>
          </div>
          <div>
            <dt>Tools</dt>
            <dd>
              {x.tools.length
                ? x.tools.map((t) => (
                    <code key={t} style={{ marginRight: 6 }}>
                      {t}
                    </code>
                  ))
                : "none"}
            </dd>
          </div>
          <div>
            <dt>Hooks</dt>
            <dd>{x.hooks.join(", ") || "none"}</dd>
          </div>
          <div>
            <dt>Skills</dt>
            <dd>{x.skills.join(", ") || "none"}</dd>
          </div>
          <div>
            <dt>Proposed</dt>
            <dd>
              {formatDateTime(x.createdAt)}
              {x.createdBy ? ` by ${x.createdBy.name}` : ""}
              {x.authorRunId && (
                <>
                  {" · "}
                  <Link href={`/runs/${encodeURIComponent(x.authorRunId)}`}>the run that proposed it</Link>
                </>
              )}
            </dd>
          </div>
        </dl>
      </div>
      <ExtensionActions extension={x} />
    </div>
  );
}

function Tests({ extension: x }: { extension: ExtensionDetail }) {
  const t = x.testResults;
  return (
    <section className="card" aria-labelledby="extension-tests-title" data-testid="extension-tests">
      <div className="card-header">
        <h2 id="extension-tests-title">Tests</h2>
        <span
          className="small"
          style={{ color: t ? (t.ok ? "var(--green)" : "var(--red)") : "var(--text-3)" }}
          data-testid="extension-tests-summary"
          data-ok={t ? String(t.ok) : ""}
        >
          {t ? (t.ok ? `✓ ${testsText(x.tests)}` : `✗ ${testsText(x.tests)}`) : "not run yet"}
        </span>
      </div>
      <div className={improvementStyles.cardBody}>
        {!t && (
          <p className="muted small">
            The gate has not run: the package is built and every test runs in the sandbox before anything is installed.
          </p>
        )}
        {t && <p className="small">{t.summary}</p>}
        {t && !t.build.ok && (
          <div className="error-box" role="alert" data-testid="extension-build-error">
            The build failed: {(t.build.problems ?? []).join("; ")}
          </div>
        )}
        {t && t.results.length > 0 && (
          <div className="table-wrap">
            <table className="table" data-testid="extension-test-results">
              <thead>
                <tr>
                  <th scope="col">Result</th>
                  <th scope="col">Test</th>
                  <th scope="col" className="num">
                    ms
                  </th>
                </tr>
              </thead>
              <tbody>
                {t.results.map((r, n) => (
                  <tr key={n} data-testid="extension-test" data-ok={String(r.ok)} data-name={r.name}>
                    <td className={r.ok ? improvementStyles.caseOk : improvementStyles.caseFail}>{r.ok ? "pass" : "FAIL"}</td>
                    <td>
                      <span className="small muted">{r.file} › </span>
                      {r.name}
                      {!r.ok && (
                        <div className="small" style={{ color: "var(--red)" }}>
                          {r.message}
                        </div>
                      )}
                    </td>
                    <td className="num small">{Math.round(r.durationMs)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {t && t.untested.length > 0 && (
          <p className="small" style={{ color: "var(--red)" }}>
            No passing test calls {t.untested.join(", ")}.
          </p>
        )}
      </div>
    </section>
  );
}

function Manifest({ extension: x }: { extension: ExtensionDetail }) {
  return (
    <section className="card" aria-labelledby="extension-manifest-title">
      <div className="card-header">
        <h2 id="extension-manifest-title">Manifest</h2>
      </div>
      <pre
        className={improvementStyles.cardBody}
        style={{ margin: 0, overflow: "auto", fontFamily: "var(--mono)", fontSize: 12.5 }}
        data-testid="extension-manifest"
      >
        {JSON.stringify(x.manifest, null, 2)}
      </pre>
    </section>
  );
}
