// The Runs list's sort orders: each column by one or two fields, then by id so
// equal values keep one stable order across pages (the cursor is a run id).
export const RUN_SORTS = ["created", "status", "goal", "agent", "model", "steps", "tokens", "cost", "duration", "creator"] as const;
export type RunSort = (typeof RUN_SORTS)[number];
export type SortDir = "asc" | "desc";

export function runOrderBy(sort: RunSort, dir: SortDir) {
  const by = (() => {
    switch (sort) {
      case "created":
        return [{ createdAt: dir }];
      case "status":
        return [{ status: dir }];
      case "goal":
        return [{ goal: dir }];
      case "agent":
        return [{ agentName: dir }];
      case "model":
        return [{ model: dir }];
      case "steps":
        return [{ stepCount: dir }];
      case "tokens":
        return [{ inputTokens: dir }, { outputTokens: dir }];
      case "cost":
        return [{ costUsd: dir }];
      case "duration":
        // Ended runs by what they took; runs still going (their time still grows) after them, longest
        // going first when the longest come first; runs not started last.
        return [
          { durationMs: { sort: dir, nulls: "last" as const } },
          { startedAt: { sort: dir === "desc" ? ("asc" as const) : ("desc" as const), nulls: "last" as const } },
        ];
      case "creator":
        return [{ createdBy: { email: dir } }];
    }
  })();
  return [...by, { id: dir }];
}
