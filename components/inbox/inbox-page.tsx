"use client";
// The inbox (docs/human-requests-and-policy.md#the-inbox, docs/channels.md):
// requests for a person on the left, the selected one with its answer form on
// the right. Live: the top navigation's inbox link refetches every
// humanRequests query when the server says a request changed
// (inbox-nav-link.tsx).
import { keepPreviousData } from "@tanstack/react-query";
import { useCallback, useEffect, useRef } from "react";
import { showShortcuts, useShortcuts } from "@/components/shortcuts/use-shortcuts";
import { EmptyState, ErrorState, Skeleton, SkeletonRows, PagedFooter } from "@/components/ui";
import { roleAtLeast, roleInTeam, useMe } from "@/lib/access";
import { errorCode, errorMessage } from "@/lib/errors";
import { trpc } from "@/lib/trpc";
import { useNow } from "@/lib/use-now";
import { ChannelNotices } from "./channel-notices";
import { CopyLinkButton } from "./copy-link";
import styles from "./inbox.module.css";
import { InboxFiltersBar } from "./inbox-filters";
import { INBOX_SHORTCUTS, isRadio, typingIn } from "./keys";
import { RequestDetail } from "./request-detail";
import { RequestList } from "./request-list";
import { isOpen, type Decision } from "./types";
import { STATE_FILTERS, useInboxFilters } from "./use-inbox-filters";

const PAGE_SIZE = 50;

export function InboxPage() {
  const { filters, setFilters, active, clear } = useInboxFilters();
  const { me } = useMe();
  const utils = trpc.useUtils();
  const states = STATE_FILTERS[filters.state].states;
  const list = trpc.humanRequests.list.useInfiniteQuery(
    {
      scope: filters.scope,
      kind: filters.kind.length ? filters.kind : undefined,
      state: states ? [...states] : undefined,
      limit: PAGE_SIZE,
    },
    { getNextPageParam: (last) => last.nextCursor ?? undefined, placeholderData: keepPreviousData },
  );
  const items = list.data?.pages.flatMap((p) => p.items) ?? [];
  // Nothing picked: the newest request is the one shown.
  const selectedId = filters.id ?? items[0]?.id ?? null;
  const detail = trpc.humanRequests.get.useQuery({ id: selectedId ?? "" }, { enabled: !!selectedId });
  const request = detail.data?.request ?? items.find((r) => r.id === selectedId) ?? null;

  const now = useNow(1000, items.some(isOpen) || (!!request && isOpen(request)));

  const decide = trpc.humanRequests.decide.useMutation({
    onSuccess: (view) => {
      utils.humanRequests.get.setData({ id: view.id }, (old) => (old ? { ...old, request: view } : old));
      void utils.humanRequests.invalidate();
    },
  });
  const resetDecide = decide.reset;
  useEffect(() => resetDecide(), [selectedId, resetDecide]);

  const select = useCallback((id: string) => setFilters({ id }), [setFilters]);
  const onDecide = useCallback(
    (decision: Decision) => {
      if (!selectedId) return;
      // Keep the decided request on screen (it leaves the open list) until the person moves on.
      if (!filters.id) setFilters({ id: selectedId });
      decide.mutate({ id: selectedId, ...decision });
    },
    [decide, filters.id, selectedId, setFilters],
  );

  // j/k or arrows move through the list; "?" (components/shortcuts) lists these keys.
  useShortcuts("Inbox", INBOX_SHORTCUTS);
  const nav = useRef({ items, selectedId, select });
  nav.current = { items, selectedId, select };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || typingIn(e.target) || document.querySelector("dialog[open]")) return;
      const step = e.key === "j" || e.key === "ArrowDown" ? 1 : e.key === "k" || e.key === "ArrowUp" ? -1 : 0;
      if (!step || (e.key.startsWith("Arrow") && isRadio(e.target))) return;
      const { items: all, selectedId: current } = nav.current;
      if (all.length === 0) return;
      e.preventDefault();
      const i = all.findIndex((r) => r.id === current);
      const next = i === -1 ? 0 : Math.min(Math.max(i + step, 0), all.length - 1);
      nav.current.select(all[next].id);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  let left;
  if (list.isLoading) {
    left = <SkeletonRows rows={5} columns={2} />;
  } else if (list.isError && items.length === 0) {
    left = <ErrorState title="Could not load the inbox" message={errorMessage(list.error)} onRetry={() => list.refetch()} />;
  } else if (items.length === 0 && active) {
    left = (
      <EmptyState
        icon="⌕"
        title="No requests match these filters"
        action={
          <button type="button" className="btn" onClick={clear}>
            Clear filters
          </button>
        }
      >
        Try another scope, kind or state.
      </EmptyState>
    );
  } else if (items.length === 0) {
    left = (
      <EmptyState icon="✓" title="Nothing waits for you">
        When an agent needs an approval, a choice or an answer, it shows up here.
      </EmptyState>
    );
  } else {
    left = (
      <>
        <RequestList items={items} selectedId={selectedId} now={now} onSelect={select} />
        <PagedFooter query={list} failed="Could not refresh the list" testId="inbox-load-more" small />
      </>
    );
  }

  let right;
  if (request) {
    const myRole = roleInTeam(me, request.teamId);
    // The server's answer, from the same checks a decision makes (role in the run's team, the request's own rule).
    const canDecide = request.you.mayDecide;
    const decideError = decide.isError && decide.variables?.id === request.id ? errorMessage(decide.error) : null;
    right = (
      <RequestDetail
        request={request}
        timeline={detail.data?.timeline}
        now={now}
        canDecide={canDecide}
        readOnlyNote={request.you.whyNot ? `${request.you.whyNot}.` : `Deciding needs the ${request.requiredRole} role.`}
        shortcuts={canDecide && !!me}
        decide={{ pending: decide.isPending, error: decideError, onDecide }}
        actions={isOpen(request) && roleAtLeast(myRole, "operator") ? <CopyLinkButton requestId={request.id} /> : undefined}
      />
    );
  } else if (selectedId && detail.isError) {
    right =
      errorCode(detail.error) === "NOT_FOUND" ? (
        <EmptyState icon="?" title="Request not found">
          {errorMessage(detail.error)}. It may belong to a run of a team you are not in.
        </EmptyState>
      ) : (
        <ErrorState title="Could not load the request" message={errorMessage(detail.error)} onRetry={() => detail.refetch()} />
      );
  } else if (selectedId || list.isLoading) {
    right = (
      <div className="stack" style={{ padding: 20 }} role="status" aria-label="Loading the request">
        <Skeleton width={160} />
        <Skeleton width="60%" height={22} />
        <Skeleton width="85%" />
        <Skeleton width="40%" />
      </div>
    );
  } else {
    right = (
      <p className="muted" style={{ padding: 24 }}>
        Pick a request on the left to see it here.
      </p>
    );
  }

  return (
    <div className={styles.page}>
      <div className={styles.header}>
        <div className="page-title-block">
          <h1>Inbox</h1>
          <p>Approvals, choices and answers agents wait for.</p>
        </div>
        <span className="spacer" />
        <button
          type="button"
          className="btn btn-ghost btn-sm"
          onClick={showShortcuts}
          data-testid="show-shortcuts"
          title="Keyboard shortcuts (?)"
        >
          Shortcuts <kbd aria-hidden="true">?</kbd>
        </button>
      </div>
      <ChannelNotices />
      <div className={styles.layout}>
        <section className={`card ${styles.listPane}`} aria-label="Requests">
          <InboxFiltersBar filters={filters} onChange={(patch) => setFilters({ ...patch, id: null })} />
          <div className={styles.listScroll} aria-busy={list.isFetching}>
            {left}
          </div>
        </section>
        <section className={`card ${styles.detailPane}`} aria-label="Request">
          {right}
        </section>
      </div>
    </div>
  );
}
