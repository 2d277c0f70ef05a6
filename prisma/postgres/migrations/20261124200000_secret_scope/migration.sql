-- AlterTable
ALTER TABLE "Secret" ADD COLUMN     "allowedAgents" TEXT NOT NULL DEFAULT '[]',
ADD COLUMN     "allowedTeams" TEXT NOT NULL DEFAULT '[]',
ADD COLUMN     "callerCommands" BOOLEAN NOT NULL DEFAULT false;

