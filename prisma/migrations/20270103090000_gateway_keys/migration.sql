-- Team gateway keys (docs/gateway.md#team-keys): only each key's SHA-256 is stored.
-- CreateTable
CREATE TABLE "GatewayKey" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "teamId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "budgetUsd" REAL,
    "model" TEXT,
    "createdById" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" DATETIME,
    "expiresAt" DATETIME,
    "revokedAt" DATETIME,
    CONSTRAINT "GatewayKey_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "Team" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "GatewayKey_tokenHash_key" ON "GatewayKey"("tokenHash");

-- CreateIndex
CREATE INDEX "GatewayKey_teamId_idx" ON "GatewayKey"("teamId");

