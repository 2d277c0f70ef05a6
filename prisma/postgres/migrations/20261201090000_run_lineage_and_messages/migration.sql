-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "lineage" TEXT,
ADD COLUMN     "parentRunId" TEXT,
ADD COLUMN     "parentSeq" INTEGER;

-- CreateIndex
CREATE INDEX "Run_parentRunId_idx" ON "Run"("parentRunId");

-- CreateIndex
CREATE INDEX "RunEvent_runId_type_seq_idx" ON "RunEvent"("runId", "type", "seq");

