-- AlterTable
ALTER TABLE "ChangeRequest" ADD COLUMN     "stateReason" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "teamId" TEXT,
ADD COLUMN     "testedOn" TEXT;

-- CreateIndex
CREATE INDEX "ChangeRequest_authorRunId_idx" ON "ChangeRequest"("authorRunId");

