-- CreateTable
CREATE TABLE "RunLease" (
    "runId" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "ownerKey" INTEGER NOT NULL,
    "epoch" INTEGER NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "takenAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "renewals" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "RunLease_pkey" PRIMARY KEY ("runId")
);

-- CreateTable
CREATE TABLE "RunnerProcess" (
    "id" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "pid" INTEGER NOT NULL,
    "version" TEXT NOT NULL,
    "lockKey" INTEGER NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "heartbeatAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "stoppedAt" TIMESTAMP(3),
    "runsOwned" INTEGER NOT NULL DEFAULT 0,
    "leaseRenewals" INTEGER NOT NULL DEFAULT 0,
    "stats" TEXT NOT NULL DEFAULT '{}',

    CONSTRAINT "RunnerProcess_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "RunLease_owner_idx" ON "RunLease"("owner");

