-- CreateTable
CREATE TABLE "Machine" (
    "id" TEXT NOT NULL,
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
    "lastSeenAt" TIMESTAMP(3),
    "lastError" TEXT,
    "createdById" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "archivedAt" TIMESTAMP(3),

    CONSTRAINT "Machine_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Machine_teamId_idx" ON "Machine"("teamId");

-- AddForeignKey
ALTER TABLE "Machine" ADD CONSTRAINT "Machine_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "Team"("id") ON DELETE CASCADE ON UPDATE CASCADE;

