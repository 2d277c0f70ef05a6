-- Remote machines for T3 (docs/desktops-and-tiers.md#t3-remote-machines): the private key is stored sealed.
-- CreateTable
CREATE TABLE "Machine" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "teamId" TEXT,
    "name" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "port" INTEGER NOT NULL DEFAULT 22,
    "user" TEXT NOT NULL,
    "labels" TEXT NOT NULL DEFAULT '[]',
    "concurrency" INTEGER NOT NULL DEFAULT 1,
    "hostKeyFingerprint" TEXT,
    "hostKey" TEXT,
    "privateKeySealed" TEXT NOT NULL,
    "publicKey" TEXT NOT NULL,
    "confinement" TEXT NOT NULL DEFAULT 'unknown',
    "facts" TEXT,
    "lastSeenAt" DATETIME,
    "lastError" TEXT,
    "createdById" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "archivedAt" DATETIME,
    CONSTRAINT "Machine_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "Team" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "Machine_teamId_idx" ON "Machine"("teamId");

