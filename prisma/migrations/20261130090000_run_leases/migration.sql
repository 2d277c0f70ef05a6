-- CreateTable
CREATE TABLE "RunLease" (
    "runId" TEXT NOT NULL PRIMARY KEY,
    "owner" TEXT NOT NULL,
    "ownerKey" INTEGER NOT NULL,
    "epoch" INTEGER NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "takenAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "renewals" INTEGER NOT NULL DEFAULT 0
);

-- CreateTable
CREATE TABLE "RunnerProcess" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "role" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "pid" INTEGER NOT NULL,
    "version" TEXT NOT NULL,
    "lockKey" INTEGER NOT NULL,
    "startedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "heartbeatAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "stoppedAt" DATETIME,
    "runsOwned" INTEGER NOT NULL DEFAULT 0,
    "leaseRenewals" INTEGER NOT NULL DEFAULT 0,
    "stats" TEXT NOT NULL DEFAULT '{}'
);

-- CreateIndex
CREATE INDEX "RunLease_owner_idx" ON "RunLease"("owner");

