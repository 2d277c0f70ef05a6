-- Span's key becomes (runId, spanId): a run's spans arrive together and run ids grow with time, so
-- new spans land at a few places in the key's index instead of a random place in an index of
-- hashed ids (docs/performance.md#span-ingest-and-search). SQLite cannot change a table's key in
-- place, and copying every span here would hold the write lock for all of them at once. So the
-- spans stay in the old table, renamed "_rein_spans_to_move" (its indexes dropped: the new table's
-- take their names), and the backfill span-key (server/db/backfill.ts) moves them into the new
-- table in batches, then drops it (docs/development.md#rewriting-a-large-table).
ALTER TABLE "Span" RENAME TO "_rein_spans_to_move";
DROP INDEX "Span_runId_startTime_idx";
DROP INDEX "Span_startTime_idx";
DROP INDEX "Span_kind_startTime_idx";
DROP INDEX "Span_durationMs_startTime_idx";
DROP INDEX "Span_name_idx";

-- CreateTable
CREATE TABLE "Span" (
    "spanId" TEXT NOT NULL,
    "traceId" TEXT NOT NULL,
    "parentSpanId" TEXT,
    "runId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "startTime" DATETIME NOT NULL,
    "endTime" DATETIME,
    "durationMs" INTEGER,
    "status" TEXT NOT NULL DEFAULT 'unset',
    "teamId" TEXT,
    "workflowId" TEXT NOT NULL,
    "userId" TEXT,
    "model" TEXT,
    "tool" TEXT,
    "inputTokens" INTEGER NOT NULL DEFAULT 0,
    "outputTokens" INTEGER NOT NULL DEFAULT 0,
    "cachedInputTokens" INTEGER NOT NULL DEFAULT 0,
    "costUsd" REAL NOT NULL DEFAULT 0,
    "attributes" TEXT NOT NULL,
    "detail" TEXT,

    PRIMARY KEY ("runId", "spanId")
);

-- CreateIndex
CREATE INDEX "Span_runId_startTime_idx" ON "Span"("runId", "startTime");

-- CreateIndex
CREATE INDEX "Span_startTime_idx" ON "Span"("startTime");

-- CreateIndex
CREATE INDEX "Span_kind_startTime_idx" ON "Span"("kind", "startTime");

-- CreateIndex
CREATE INDEX "Span_durationMs_startTime_idx" ON "Span"("durationMs", "startTime");

-- CreateIndex
CREATE INDEX "Span_name_idx" ON "Span"("name");
