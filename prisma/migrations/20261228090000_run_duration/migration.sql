-- An ended run's duration, stored so the Runs list can sort by it.
ALTER TABLE "Run" ADD COLUMN "durationMs" INTEGER;

-- Runs that ended before: timestamps kept as milliseconds or as ISO text.
UPDATE "Run" SET "durationMs" = "endedAt" - "startedAt"
  WHERE "endedAt" IS NOT NULL AND "startedAt" IS NOT NULL AND typeof("endedAt") = 'integer' AND typeof("startedAt") = 'integer';
UPDATE "Run" SET "durationMs" = CAST(ROUND((julianday("endedAt") - julianday("startedAt")) * 86400000) AS INTEGER)
  WHERE "endedAt" IS NOT NULL AND "startedAt" IS NOT NULL AND typeof("endedAt") = 'text' AND typeof("startedAt") = 'text';
