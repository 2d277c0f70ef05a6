-- Span's key becomes (runId, spanId) (docs/performance.md#span-ingest-and-search). As on SQLite, the
-- spans stay in the old table, renamed "_rein_spans_to_move" (its indexes dropped: the new table's
-- take their names), and the backfill span-key (server/db/backfill.ts) moves them into the new
-- table in batches, then drops it (docs/development.md#rewriting-a-large-table).
ALTER TABLE "Span" RENAME TO "_rein_spans_to_move";
ALTER TABLE "_rein_spans_to_move" RENAME CONSTRAINT "Span_pkey" TO "_rein_spans_to_move_pkey";
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
    "startTime" TIMESTAMP(3) NOT NULL,
    "endTime" TIMESTAMP(3),
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
    "costUsd" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "attributes" TEXT NOT NULL,
    "detail" TEXT,

    CONSTRAINT "Span_pkey" PRIMARY KEY ("runId","spanId")
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
