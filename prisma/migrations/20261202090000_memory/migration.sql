-- CreateTable
CREATE TABLE "Memory" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "scope" TEXT NOT NULL,
    "agentName" TEXT NOT NULL,
    "teamId" TEXT,
    "ownerId" TEXT,
    "kind" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'active',
    "pinned" BOOLEAN NOT NULL DEFAULT false,
    "sourceRunId" TEXT,
    "requestId" TEXT,
    "createdBy" TEXT NOT NULL,
    "key" TEXT,
    "decidedById" TEXT,
    "decidedAt" DATETIME,
    "uses" INTEGER NOT NULL DEFAULT 0,
    "lastUsedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE UNIQUE INDEX "Memory_key_key" ON "Memory"("key");

-- CreateIndex
CREATE INDEX "Memory_teamId_scope_agentName_state_idx" ON "Memory"("teamId", "scope", "agentName", "state");

-- CreateIndex
CREATE INDEX "Memory_ownerId_idx" ON "Memory"("ownerId");

-- CreateIndex
CREATE INDEX "Memory_sourceRunId_kind_idx" ON "Memory"("sourceRunId", "kind");

-- CreateIndex
CREATE INDEX "Memory_requestId_idx" ON "Memory"("requestId");

-- CreateIndex
CREATE INDEX "Memory_updatedAt_idx" ON "Memory"("updatedAt");

