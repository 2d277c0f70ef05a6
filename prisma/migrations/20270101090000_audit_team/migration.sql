-- The team of each audit row, for the Audit page's team filter. New rows get it
-- when written; rows written before are filled by the backfill "audit-team"
-- (server/db/backfill.ts) from their run, in batches after this migration.
ALTER TABLE "AuditEntry" ADD COLUMN "teamId" TEXT;

CREATE INDEX "AuditEntry_teamId_id_idx" ON "AuditEntry"("teamId", "id");
