-- AlterTable
ALTER TABLE "Secret" ADD COLUMN "allowedAgents" TEXT NOT NULL DEFAULT '[]';
ALTER TABLE "Secret" ADD COLUMN "allowedTeams" TEXT NOT NULL DEFAULT '[]';
ALTER TABLE "Secret" ADD COLUMN "callerCommands" BOOLEAN NOT NULL DEFAULT false;
