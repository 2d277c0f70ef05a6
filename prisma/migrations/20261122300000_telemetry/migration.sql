-- CreateTable
CREATE TABLE "Span" (
    "spanId" TEXT NOT NULL PRIMARY KEY,
    "traceId" TEXT NOT NULL,
    "parentSpanId" TEXT,
    "runId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "startTime" DATETIME NOT NULL,
    "endTime" DATETIME,
    "status" TEXT NOT NULL DEFAULT 'unset',
    "teamId" TEXT,
    "workflowId" TEXT NOT NULL,
    "userId" TEXT,
    "model" TEXT,
    "tool" TEXT,
    "inputTokens" INTEGER NOT NULL DEFAULT 0,
    "outputTokens" INTEGER NOT NULL DEFAULT 0,
    "cachedInputTokens" INTEGER NOT NULL DEFAULT 0,
    "costUsd" REAL NOT NULL DEFAULT 0,
    "attributes" TEXT NOT NULL,
    "detail" TEXT
);

-- CreateTable
CREATE TABLE "ModelPrice" (
    "model" TEXT NOT NULL PRIMARY KEY,
    "inputPerMTok" REAL NOT NULL,
    "outputPerMTok" REAL NOT NULL,
    "cacheReadPerMTok" REAL NOT NULL DEFAULT 0,
    "cacheWritePerMTok" REAL NOT NULL DEFAULT 0,
    "updatedById" TEXT,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "CostRollup" (
    "day" TEXT NOT NULL,
    "teamId" TEXT NOT NULL,
    "workflowId" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "calls" INTEGER NOT NULL DEFAULT 0,
    "inputTokens" INTEGER NOT NULL DEFAULT 0,
    "outputTokens" INTEGER NOT NULL DEFAULT 0,
    "cachedInputTokens" INTEGER NOT NULL DEFAULT 0,
    "costUsd" REAL NOT NULL DEFAULT 0,

    PRIMARY KEY ("day", "teamId", "workflowId", "model")
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Run" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "goal" TEXT NOT NULL,
    "agentName" TEXT NOT NULL,
    "agentVersion" INTEGER NOT NULL,
    "teamId" TEXT,
    "createdById" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "statusReason" TEXT,
    "model" TEXT NOT NULL,
    "tier" TEXT NOT NULL DEFAULT 'T1',
    "scenario" TEXT,
    "maxSteps" INTEGER NOT NULL DEFAULT 50,
    "stepCount" INTEGER NOT NULL DEFAULT 0,
    "inputTokens" INTEGER NOT NULL DEFAULT 0,
    "outputTokens" INTEGER NOT NULL DEFAULT 0,
    "costUsd" REAL NOT NULL DEFAULT 0,
    "lastSeq" INTEGER NOT NULL DEFAULT 0,
    "tracedSeq" INTEGER NOT NULL DEFAULT 0,
    "errorCode" TEXT,
    "errorMessage" TEXT,
    "leaseOwner" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" DATETIME,
    "endedAt" DATETIME,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Run_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "Team" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "Run_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "User" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);
INSERT INTO "new_Run" ("agentName", "agentVersion", "createdAt", "createdById", "endedAt", "errorCode", "errorMessage", "goal", "id", "inputTokens", "lastSeq", "leaseOwner", "maxSteps", "model", "outputTokens", "scenario", "startedAt", "status", "statusReason", "stepCount", "teamId", "tier", "updatedAt") SELECT "agentName", "agentVersion", "createdAt", "createdById", "endedAt", "errorCode", "errorMessage", "goal", "id", "inputTokens", "lastSeq", "leaseOwner", "maxSteps", "model", "outputTokens", "scenario", "startedAt", "status", "statusReason", "stepCount", "teamId", "tier", "updatedAt" FROM "Run";
DROP TABLE "Run";
ALTER TABLE "new_Run" RENAME TO "Run";
CREATE INDEX "Run_status_idx" ON "Run"("status");
CREATE INDEX "Run_createdAt_idx" ON "Run"("createdAt");
CREATE INDEX "Run_agentName_idx" ON "Run"("agentName");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "Span_runId_startTime_idx" ON "Span"("runId", "startTime");

-- CreateIndex
CREATE INDEX "Span_startTime_idx" ON "Span"("startTime");

-- CreateIndex
CREATE INDEX "Span_kind_startTime_idx" ON "Span"("kind", "startTime");

-- CreateIndex
CREATE INDEX "CostRollup_day_idx" ON "CostRollup"("day");

