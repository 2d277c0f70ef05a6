-- AlterTable
ALTER TABLE "Span" ADD COLUMN "durationMs" INTEGER;

-- Backfill: the duration span search computed from the times until now, to the millisecond.
UPDATE "Span" SET "durationMs" = CAST(ROUND((julianday("endTime") - julianday("startTime")) * 86400000) AS INTEGER) WHERE "endTime" IS NOT NULL;

-- CreateIndex
CREATE INDEX "Span_durationMs_startTime_idx" ON "Span"("durationMs", "startTime");

-- CreateIndex
CREATE INDEX "Span_name_idx" ON "Span"("name");
