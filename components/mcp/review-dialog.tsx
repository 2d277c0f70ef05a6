"use client";
// A tool whose definition changed since it was approved (a "rug pull" until
// shown otherwise): the pinned definition beside the new one, lines that
// differ marked. Accept pins the new one and turns the tool back on; reject
// keeps it off with the old pin.
import { useMemo } from "react";
import { Dialog, ErrorBlock } from "@/components/ui";
import { prettyJson } from "@/components/json-block";
import { trpc } from "@/lib/trpc";
import type { McpToolView } from "./format";

export function ReviewDialog({
  server,
  tool,
  onClose,
  onDone,
}: {
  server: string;
  tool: McpToolView | null;
  onClose(): void;
  onDone(): void;
}) {
  return (
    <Dialog open={tool !== null} onClose={onClose} labelledBy="mcp-review-title" testId="mcp-review-dialog">
      {tool?.change && <Review server={server} tool={tool} change={tool.change} onClose={onClose} onDone={onDone} />}
    </Dialog>
  );
}

function Side({ title, lines, other, testId }: { title: string; lines: string[]; other: Set<string>; testId: string }) {
  return (
    <div style={{ flex: 1, minWidth: 0 }}>
      <div className="label" style={{ marginBottom: 4 }}>
        {title}
      </div>
      <pre className="code-block light" style={{ maxHeight: 420 }} data-testid={testId}>
        {lines.map((line, i) => (
          <div key={i} style={other.has(line) ? undefined : { background: "var(--amber-soft)" }}>
            {line || " "}
          </div>
        ))}
      </pre>
    </div>
  );
}

function Review({
  server,
  tool,
  change,
  onClose,
  onDone,
}: {
  server: string;
  tool: McpToolView;
  change: NonNullable<McpToolView["change"]>;
  onClose(): void;
  onDone(): void;
}) {
  const review = trpc.mcp.review.useMutation({ onSuccess: onDone });
  const { pinned, next } = useMemo(
    () => ({ pinned: prettyJson(change.pinned).split("\n"), next: prettyJson(change.definition).split("\n") }),
    [change],
  );
  const pinnedSet = useMemo(() => new Set(pinned), [pinned]);
  const nextSet = useMemo(() => new Set(next), [next]);
  return (
    <div className="dialog-form">
      <div className="dialog-header">
        <div>
          <h2 id="mcp-review-title">Review the change to {tool.exposedName}</h2>
          <p>
            The server now describes this tool differently from the definition you approved. It is off until you decide: a changed
            description can tell a model to do something else.
          </p>
        </div>
      </div>
      <div className="dialog-body">
        <div className="row" style={{ gap: 12, alignItems: "flex-start" }}>
          <Side title="Approved (pinned)" lines={pinned} other={nextSet} testId="mcp-review-pinned" />
          <Side title="New" lines={next} other={pinnedSet} testId="mcp-review-new" />
        </div>
        <ErrorBlock error={review.error} />
      </div>
      <div className="dialog-footer">
        <span className="spacer" />
        <button type="button" className="btn" onClick={onClose}>
          Later
        </button>
        <button
          type="button"
          className="btn btn-danger"
          disabled={review.isPending}
          onClick={() => review.mutate({ server, tool: tool.name, accept: false })}
          data-testid="mcp-review-reject"
        >
          Reject (keep it off)
        </button>
        <button
          type="button"
          className="btn btn-primary"
          disabled={review.isPending}
          onClick={() => review.mutate({ server, tool: tool.name, accept: true })}
          data-testid="mcp-review-accept"
        >
          {review.isPending && <span className="spinner" aria-hidden="true" />}
          Accept the new definition
        </button>
      </div>
    </div>
  );
}
