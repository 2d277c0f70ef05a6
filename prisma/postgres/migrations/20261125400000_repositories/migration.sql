-- CreateTable
CREATE TABLE "Repository" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "defaultBranch" TEXT NOT NULL DEFAULT 'main',
    "testCommand" TEXT NOT NULL,
    "testTimeoutSec" INTEGER NOT NULL DEFAULT 600,
    "protectedPaths" TEXT NOT NULL DEFAULT '[]',
    "evalDatasetId" TEXT,
    "teamId" TEXT,
    "builtIn" BOOLEAN NOT NULL DEFAULT false,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "archivedAt" TIMESTAMP(3),

    CONSTRAINT "Repository_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ChangeRequest" (
    "id" TEXT NOT NULL,
    "repositoryId" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "hypothesis" TEXT NOT NULL DEFAULT '',
    "state" TEXT NOT NULL DEFAULT 'draft',
    "branch" TEXT NOT NULL,
    "baseCommit" TEXT NOT NULL,
    "headCommit" TEXT,
    "diffStat" TEXT NOT NULL DEFAULT '{}',
    "files" TEXT NOT NULL DEFAULT '[]',
    "authorRunId" TEXT,
    "frictionId" TEXT,
    "cycleId" TEXT,
    "approvalRequestId" TEXT,
    "mergeCommit" TEXT,
    "revertCommit" TEXT,
    "checks" TEXT NOT NULL DEFAULT '{}',
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ChangeRequest_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ChangeCheck" (
    "id" TEXT NOT NULL,
    "changeRequestId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "endedAt" TIMESTAMP(3),
    "exitCode" INTEGER,
    "log" TEXT NOT NULL DEFAULT '',
    "durationMs" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "ChangeCheck_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Extension" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'proposed',
    "manifest" TEXT NOT NULL DEFAULT '{}',
    "files" TEXT NOT NULL DEFAULT '{}',
    "capabilities" TEXT NOT NULL DEFAULT '[]',
    "testsResult" TEXT,
    "authorRunId" TEXT,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Extension_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Repository_name_key" ON "Repository"("name");

-- CreateIndex
CREATE INDEX "ChangeRequest_repositoryId_state_idx" ON "ChangeRequest"("repositoryId", "state");

-- CreateIndex
CREATE INDEX "ChangeRequest_state_idx" ON "ChangeRequest"("state");

-- CreateIndex
CREATE INDEX "ChangeRequest_createdAt_idx" ON "ChangeRequest"("createdAt");

-- CreateIndex
CREATE INDEX "ChangeCheck_changeRequestId_startedAt_idx" ON "ChangeCheck"("changeRequestId", "startedAt");

-- CreateIndex
CREATE INDEX "Extension_state_idx" ON "Extension"("state");

-- CreateIndex
CREATE UNIQUE INDEX "Extension_name_version_key" ON "Extension"("name", "version");

-- AddForeignKey
ALTER TABLE "ChangeRequest" ADD CONSTRAINT "ChangeRequest_repositoryId_fkey" FOREIGN KEY ("repositoryId") REFERENCES "Repository"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ChangeCheck" ADD CONSTRAINT "ChangeCheck_changeRequestId_fkey" FOREIGN KEY ("changeRequestId") REFERENCES "ChangeRequest"("id") ON DELETE CASCADE ON UPDATE CASCADE;

