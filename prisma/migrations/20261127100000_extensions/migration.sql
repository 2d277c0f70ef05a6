-- AlterTable
ALTER TABLE "Extension" ADD COLUMN "stateReason" TEXT;

