-- An ended run's duration, stored so the Runs list can sort by it.
ALTER TABLE "Run" ADD COLUMN "durationMs" INTEGER;

-- Runs that ended before.
UPDATE "Run" SET "durationMs" = CAST(ROUND(EXTRACT(EPOCH FROM ("endedAt" - "startedAt")) * 1000) AS INTEGER)
  WHERE "endedAt" IS NOT NULL AND "startedAt" IS NOT NULL;
