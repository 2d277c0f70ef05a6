-- Retention (docs/operations.md#retention): a run can be pinned (kept whole), and
-- records what retention dropped of it and when. The index is the order the
-- pruner walks ended runs in.
-- AlterTable
ALTER TABLE "Run" ADD COLUMN "pinnedAt" DATETIME;
ALTER TABLE "Run" ADD COLUMN "pinnedById" TEXT;
ALTER TABLE "Run" ADD COLUMN "pruned" TEXT;
ALTER TABLE "Run" ADD COLUMN "prunedAt" DATETIME;

-- CreateIndex
CREATE INDEX "Run_endedAt_id_idx" ON "Run"("endedAt", "id");

