-- AlterTable
ALTER TABLE "Run" ADD COLUMN "experimentId" TEXT;
ALTER TABLE "Run" ADD COLUMN "workflow" TEXT;

-- CreateTable
CREATE TABLE "Dataset" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "teamId" TEXT,
    "scoring" TEXT NOT NULL DEFAULT '{"scorers":[],"threshold":1}',
    "builtIn" BOOLEAN NOT NULL DEFAULT false,
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "archivedAt" DATETIME
);

-- CreateTable
CREATE TABLE "DatasetItem" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "datasetId" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "goal" TEXT NOT NULL,
    "agent" TEXT,
    "scenario" TEXT,
    "expected" TEXT NOT NULL DEFAULT '{}',
    "sourceRunId" TEXT,
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deletedAt" DATETIME,
    CONSTRAINT "DatasetItem_datasetId_fkey" FOREIGN KEY ("datasetId") REFERENCES "Dataset" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Experiment" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "datasetId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "agentName" TEXT,
    "agentVersion" INTEGER,
    "model" TEXT,
    "epochs" INTEGER NOT NULL DEFAULT 1,
    "concurrency" INTEGER NOT NULL DEFAULT 2,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "statusReason" TEXT,
    "teamId" TEXT,
    "scoring" TEXT NOT NULL,
    "baselineId" TEXT,
    "createdById" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" DATETIME,
    "endedAt" DATETIME
);

-- CreateTable
CREATE TABLE "ExperimentTrial" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "experimentId" TEXT NOT NULL,
    "itemId" TEXT NOT NULL,
    "itemKey" TEXT NOT NULL,
    "epoch" INTEGER NOT NULL,
    "runId" TEXT,
    "agentName" TEXT,
    "agentVersion" INTEGER,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "score" REAL,
    "passed" BOOLEAN,
    "scores" TEXT NOT NULL DEFAULT '[]',
    "finalText" TEXT,
    "toolSequence" TEXT NOT NULL DEFAULT '[]',
    "runStatus" TEXT,
    "modelCalls" INTEGER NOT NULL DEFAULT 0,
    "inputTokens" INTEGER NOT NULL DEFAULT 0,
    "outputTokens" INTEGER NOT NULL DEFAULT 0,
    "costUsd" REAL NOT NULL DEFAULT 0,
    "durationMs" INTEGER,
    "error" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "ExperimentTrial_experimentId_fkey" FOREIGN KEY ("experimentId") REFERENCES "Experiment" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "Dataset_name_key" ON "Dataset"("name");

-- CreateIndex
CREATE INDEX "DatasetItem_datasetId_idx" ON "DatasetItem"("datasetId");

-- CreateIndex
CREATE UNIQUE INDEX "DatasetItem_datasetId_key_version_key" ON "DatasetItem"("datasetId", "key", "version");

-- CreateIndex
CREATE INDEX "Experiment_datasetId_idx" ON "Experiment"("datasetId");

-- CreateIndex
CREATE INDEX "Experiment_createdAt_idx" ON "Experiment"("createdAt");

-- CreateIndex
CREATE INDEX "Experiment_status_idx" ON "Experiment"("status");

-- CreateIndex
CREATE UNIQUE INDEX "ExperimentTrial_runId_key" ON "ExperimentTrial"("runId");

-- CreateIndex
CREATE INDEX "ExperimentTrial_experimentId_status_idx" ON "ExperimentTrial"("experimentId", "status");

-- CreateIndex
CREATE INDEX "ExperimentTrial_experimentId_itemKey_idx" ON "ExperimentTrial"("experimentId", "itemKey");

-- CreateIndex
CREATE UNIQUE INDEX "ExperimentTrial_experimentId_itemId_epoch_key" ON "ExperimentTrial"("experimentId", "itemId", "epoch");

-- CreateIndex
CREATE INDEX "Run_experimentId_idx" ON "Run"("experimentId");

