-- AlterTable
ALTER TABLE "Team" ADD COLUMN "budgetUsd" REAL;

-- AlterTable
ALTER TABLE "Run" ADD COLUMN "budgetUsd" REAL;

-- CreateTable
CREATE TABLE "Setting" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "value" TEXT NOT NULL,
    "updatedById" TEXT,
    "updatedAt" DATETIME NOT NULL
);

