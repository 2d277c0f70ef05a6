-- AlterTable
ALTER TABLE "AuditEntry" ADD COLUMN     "teamId" TEXT;

-- CreateIndex
CREATE INDEX "AuditEntry_teamId_id_idx" ON "AuditEntry"("teamId", "id");

