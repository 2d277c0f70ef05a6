"use client";
// The extension registry: one row per version with its state, capabilities,
// tools and test results; an admin proposes a package here (the csv-tools
// demo is one click away).
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { EmptyState, PageShell, SkeletonRows } from "@/components/ui";
import { roleAtLeast, useMe } from "@/lib/access";
import { errorMessage } from "@/lib/errors";
import { formatDateTime } from "@/lib/format";
import { trpc } from "@/lib/trpc";
import { CapabilityBadges, ExtensionStateBadge } from "./state-badge";
import { extensionHref, testsText, type ExtensionSummary } from "./format";
import styles from "./extensions.module.css";
import improvementStyles from "@/components/improvements/improvements.module.css";

export function ExtensionsList() {
  const list = trpc.extensions.list.useQuery(undefined, { refetchInterval: 15_000 });
  return (
    <PageShell query={list} loading={<SkeletonRows rows={4} columns={6} />} failed="Could not load the extensions">
      {(data) => {
        if (!data.extensions.length) return <NoExtensions />;
        return (
          <section className="card" aria-label="Extensions">
            <div className="table-wrap">
              <table className="table" data-testid="extensions-table">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">State</th>
                    <th scope="col">Capabilities</th>
                    <th scope="col">Tools</th>
                    <th scope="col">Hooks</th>
                    <th scope="col">Tests</th>
                    <th scope="col">Proposed</th>
                  </tr>
                </thead>
                <tbody>
                  {data.extensions.map((x) => (
                    <Row key={x.id} extension={x} />
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

function Row({ extension: x }: { extension: ExtensionSummary }) {
  return (
    <tr data-testid="extension-row" data-name={x.name} data-version={x.version} data-state={x.state}>
      <td>
        <Link href={extensionHref(x.id)} className={improvementStyles.nameLink} data-testid="extension-open">
          {x.name} <span className="muted">v{x.version}</span>
        </Link>
        <div className="small muted">{x.description}</div>
      </td>
      <td>
        <ExtensionStateBadge state={x.state} />
      </td>
      <td>
        <CapabilityBadges capabilities={x.capabilities} />
      </td>
      <td className="small" data-testid="extension-tools">
        {x.tools.length ? (
          x.tools.map((t) => (
            <code key={t} style={{ marginRight: 6 }}>
              {t}
            </code>
          ))
        ) : (
          <span className="muted">—</span>
        )}
      </td>
      <td className="small">{x.hooks.length ? x.hooks.join(", ") : <span className="muted">—</span>}</td>
      <td className="small nowrap" data-testid="extension-tests" style={{ color: x.tests && !x.tests.ok ? "var(--red)" : undefined }}>
        {testsText(x.tests)}
      </td>
      <td className="small nowrap">{formatDateTime(x.createdAt)}</td>
    </tr>
  );
}

function NoExtensions() {
  return (
    <EmptyState icon="⧉" title="No extensions yet">
      An extension is a package of tools, event hooks and skills with its own tests: a manifest, an <code>index.js</code> whose{" "}
      <code>setup(api)</code> registers them, and <code>test/*.test.js</code> files. Rein builds it and runs every test in the sandbox; it
      is installed for every agent only if all of them pass. Rein&apos;s improver proposes them, a trusted runtime tool becomes one when it
      is promoted, and admins propose them below.
    </EmptyState>
  );
}

/** An admin pastes a package ({ manifest, files } as JSON) and proposes it; the demo fills the box. */
export function ProposeExtension() {
  const { me } = useMe();
  const router = useRouter();
  const utils = trpc.useUtils();
  const [open, setOpen] = useState(false);
  const [text, setText] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const demo = trpc.extensions.demo.useQuery(undefined, { enabled: open, staleTime: Infinity });
  const propose = trpc.extensions.propose.useMutation({
    onSuccess: (x) => {
      void utils.extensions.list.invalidate();
      utils.extensions.get.setData({ id: x.id }, x);
      router.push(extensionHref(x.id));
    },
  });
  const isAdmin = roleAtLeast(me?.role, "admin");
  if (!isAdmin)
    return (
      <button
        type="button"
        className="btn btn-primary"
        disabled
        title="Proposing an extension needs the admin role"
        data-testid="extension-propose-open"
      >
        Propose an extension
      </button>
    );
  if (!open)
    return (
      <button type="button" className="btn btn-primary" onClick={() => setOpen(true)} data-testid="extension-propose-open">
        Propose an extension
      </button>
    );

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    setProblem(null);
    let pkg: { manifest?: unknown; files?: unknown };
    try {
      pkg = JSON.parse(text) as typeof pkg;
    } catch (err) {
      setProblem(`The package is not JSON: ${(err as Error).message}`);
      return;
    }
    if (!pkg || typeof pkg !== "object" || Array.isArray(pkg)) {
      setProblem("The package is an object: { manifest, files }");
      return;
    }
    propose.mutate({ manifest: pkg.manifest, files: pkg.files });
  }

  return (
    <form className="card card-body stack" onSubmit={onSubmit} style={{ width: "100%" }} data-testid="extension-propose-form">
      <label htmlFor="extension-package">
        <strong>The package</strong> <span className="muted small">as JSON: {"{ manifest, files }"}</span>
      </label>
      <textarea
        id="extension-package"
        className={`input ${styles.proposeText}`}
        value={text}
        onChange={(e) => setText(e.target.value)}
        spellCheck={false}
        data-testid="extension-propose-text"
      />
      {(problem || propose.error) && (
        <div className="error-box" role="alert" data-testid="extension-propose-error">
          {problem ?? errorMessage(propose.error)}
        </div>
      )}
      <div className="row" style={{ gap: 8 }}>
        <button
          type="submit"
          className="btn btn-primary"
          disabled={!text.trim() || propose.isPending}
          data-testid="extension-propose-submit"
        >
          {propose.isPending ? "Building and testing…" : "Propose"}
        </button>
        <button
          type="button"
          className="btn"
          disabled={!demo.data}
          onClick={() => demo.data && setText(JSON.stringify(demo.data, null, 2))}
          data-testid="extension-propose-demo"
        >
          Use the csv-tools demo
        </button>
        <button type="button" className="btn" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
