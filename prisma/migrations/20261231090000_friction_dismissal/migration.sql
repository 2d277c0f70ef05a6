-- Why a person dismissed a friction (or reopened it), who, and when: the
-- Friction list shows it, and a dismissed friction starts no cycle.
ALTER TABLE "Friction" ADD COLUMN "stateReason" TEXT NOT NULL DEFAULT '';
ALTER TABLE "Friction" ADD COLUMN "stateById" TEXT;
ALTER TABLE "Friction" ADD COLUMN "stateAt" DATETIME;
