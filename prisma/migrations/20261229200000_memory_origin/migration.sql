-- Where a memory came from: "agent" (an agent chose to keep it) or "scenario"
-- (a run playing a launcher's script saved it: text a person wrote).
ALTER TABLE "Memory" ADD COLUMN "origin" TEXT NOT NULL DEFAULT 'agent';

-- Memories scenario runs saved before: marked, so they stop loading into other runs
-- until their team allows it (Memory page).
UPDATE "Memory" SET "origin" = 'scenario'
  WHERE "sourceRunId" IN (SELECT "id" FROM "Run" WHERE "scenario" IS NOT NULL);
