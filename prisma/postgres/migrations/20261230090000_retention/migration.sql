-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "pinnedAt" TIMESTAMP(3),
ADD COLUMN     "pinnedById" TEXT,
ADD COLUMN     "pruned" TEXT,
ADD COLUMN     "prunedAt" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "Run_endedAt_id_idx" ON "Run"("endedAt", "id");

