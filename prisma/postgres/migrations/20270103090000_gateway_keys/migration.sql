-- CreateTable
CREATE TABLE "GatewayKey" (
    "id" TEXT NOT NULL,
    "teamId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "budgetUsd" DOUBLE PRECISION,
    "model" TEXT,
    "createdById" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMP(3),
    "expiresAt" TIMESTAMP(3),
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "GatewayKey_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "GatewayKey_tokenHash_key" ON "GatewayKey"("tokenHash");

-- CreateIndex
CREATE INDEX "GatewayKey_teamId_idx" ON "GatewayKey"("teamId");

-- AddForeignKey
ALTER TABLE "GatewayKey" ADD CONSTRAINT "GatewayKey_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "Team"("id") ON DELETE CASCADE ON UPDATE CASCADE;

