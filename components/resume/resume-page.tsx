"use client";
// /resume?t=…: one request opened through a signed single-use link
// (docs/human-requests-and-policy.md#signed-resume-links). Opening checks the
// link without using it up; deciding uses it. Refusals (used, expired, forged,
// wrong role, closed) get the whole page and the server's words.
import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { useCallback, type ReactNode } from "react";
import { DecisionOutcome } from "@/components/inbox/decision-outcome";
import { decidedWords } from "@/lib/decision-words";
import styles from "@/components/inbox/inbox.module.css";
import { RequestDetail } from "@/components/inbox/request-detail";
import type { Decision } from "@/components/inbox/types";
import { Skeleton } from "@/components/ui";
import { Wordmark } from "@/components/top-nav";
import { UserMenu } from "@/components/user-menu";
import { errorCode, errorMessage } from "@/lib/errors";
import { formatDateTime } from "@/lib/format";
import { trpc } from "@/lib/trpc";
import { useNow } from "@/lib/use-now";

const REFUSAL_TITLES: Record<string, string> = {
  CONFLICT: "This link cannot be used any more",
  FORBIDDEN: "You cannot decide this request",
  NOT_FOUND: "This request no longer exists",
  BAD_REQUEST: "This link is not valid",
};

function Shell({ children }: { children: ReactNode }) {
  return (
    <div className={styles.resumePage}>
      <header className={styles.resumeBar}>
        <Link href="/runs" aria-label="Rein home" style={{ textDecoration: "none" }}>
          <Wordmark />
        </Link>
        <Link href="/inbox" className="small">
          Inbox
        </Link>
        <span className="spacer" />
        <UserMenu />
      </header>
      <main className={styles.resumeMain}>{children}</main>
    </div>
  );
}

function Refusal({ title, message, onRetry }: { title: string; message: string; onRetry?: () => void }) {
  return (
    <div className="card" data-testid="link-refusal">
      <div className="empty-state" role="alert">
        <div className="empty-icon" style={{ background: "var(--red-soft)", color: "var(--red)" }} aria-hidden="true">
          !
        </div>
        <h1 style={{ fontSize: 18 }} data-testid="link-refusal-title">
          {title}
        </h1>
        <p data-testid="link-refusal-message">{message}</p>
        <div className="row">
          {onRetry && (
            <button type="button" className="btn" onClick={onRetry}>
              Try again
            </button>
          )}
          <Link href="/inbox" className="btn">
            Go to the inbox
          </Link>
        </div>
      </div>
    </div>
  );
}

export function ResumePage() {
  const token = useSearchParams().get("t") ?? "";
  // A link is checked once: refetching after it was used would only say so.
  const opened = trpc.humanRequests.openLink.useQuery(
    { token },
    { enabled: !!token, retry: false, staleTime: Infinity, refetchOnReconnect: false },
  );
  const decide = trpc.humanRequests.decideWithLink.useMutation();
  const now = useNow(1000, !!opened.data && !decide.isSuccess);
  const onDecide = useCallback((decision: Decision) => decide.mutate({ token, ...decision }), [decide, token]);

  if (!token) {
    return (
      <Shell>
        <Refusal
          title="This link is incomplete"
          message="The link has no token. Open it exactly as you received it, or find the request in the inbox."
        />
      </Shell>
    );
  }
  if (opened.isLoading) {
    return (
      <Shell>
        <div className="card card-body stack" role="status" aria-label="Checking the link">
          <Skeleton width={160} />
          <Skeleton width="60%" height={22} />
          <Skeleton width="85%" />
        </div>
      </Shell>
    );
  }
  if (opened.isError || !opened.data) {
    const code = errorCode(opened.error) ?? "";
    const known = code in REFUSAL_TITLES;
    return (
      <Shell>
        <Refusal
          title={REFUSAL_TITLES[code] ?? "Could not open the link"}
          message={errorMessage(opened.error)}
          onRetry={known ? undefined : () => opened.refetch()}
        />
      </Shell>
    );
  }

  if (decide.isSuccess) {
    const view = decide.data;
    const words = decidedWords(view);
    return (
      <Shell>
        <div className="card" data-testid="resume-done" data-tone={words.tone}>
          <div className={styles.done}>
            <div className={words.tone === "yes" ? styles.doneIcon : `${styles.doneIcon} ${styles.doneIconNo}`} aria-hidden="true">
              {words.tone === "yes" ? "✓" : "✕"}
            </div>
            <h1 style={{ fontSize: 19 }} data-testid="resume-done-title">
              {words.title}
            </h1>
            {words.detail && <p data-testid="resume-done-detail">{words.detail}</p>}
            <p className="muted">{view.run ? `${view.run.goal} (${view.run.agentName})` : view.title}</p>
            <div className="row">
              <Link href={`/runs/${encodeURIComponent(view.runId)}`} className="btn btn-primary" data-testid="resume-open-run">
                Open the run
              </Link>
              <Link href="/inbox" className="btn">
                Go to the inbox
              </Link>
            </div>
          </div>
          <div style={{ padding: "0 20px 20px" }}>
            <DecisionOutcome request={view} now={now} />
          </div>
        </div>
      </Shell>
    );
  }

  const { request, timeline, linkExpiresAt } = opened.data;
  return (
    <Shell>
      <div className="alert alert-info" data-testid="link-note">
        <span>You opened a signed link. It works once and expires {formatDateTime(linkExpiresAt)}.</span>
      </div>
      <div className="card">
        <RequestDetail
          request={request}
          timeline={timeline}
          now={now}
          canDecide
          shortcuts
          decide={{ pending: decide.isPending, error: decide.isError ? errorMessage(decide.error) : null, onDecide }}
        />
      </div>
    </Shell>
  );
}
