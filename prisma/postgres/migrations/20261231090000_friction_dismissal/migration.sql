-- AlterTable
ALTER TABLE "Friction" ADD COLUMN     "stateAt" TIMESTAMP(3),
ADD COLUMN     "stateById" TEXT,
ADD COLUMN     "stateReason" TEXT NOT NULL DEFAULT '';

