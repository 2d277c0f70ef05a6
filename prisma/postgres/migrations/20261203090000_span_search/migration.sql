-- AlterTable
ALTER TABLE "Span" ADD COLUMN     "durationMs" INTEGER;

-- Backfill: the duration span search computed from the times until now, to the millisecond.
UPDATE "Span" SET "durationMs" = ROUND(EXTRACT(EPOCH FROM ("endTime" - "startTime")) * 1000) WHERE "endTime" IS NOT NULL;

-- CreateIndex
CREATE INDEX "Span_durationMs_startTime_idx" ON "Span"("durationMs", "startTime");

-- CreateIndex
CREATE INDEX "Span_name_idx" ON "Span"("name");

