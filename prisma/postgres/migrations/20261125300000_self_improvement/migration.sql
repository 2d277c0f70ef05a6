-- CreateTable
CREATE TABLE "Friction" (
    "id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "signature" TEXT NOT NULL,
    "agentName" TEXT NOT NULL,
    "teamId" TEXT,
    "title" TEXT NOT NULL,
    "tool" TEXT,
    "state" TEXT NOT NULL DEFAULT 'open',
    "occurrences" INTEGER NOT NULL DEFAULT 0,
    "runCount" INTEGER NOT NULL DEFAULT 0,
    "firstSeenAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastSeenAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Friction_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "FrictionOccurrence" (
    "id" TEXT NOT NULL,
    "frictionId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "count" INTEGER NOT NULL,
    "evidence" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "FrictionOccurrence_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "HackCycle" (
    "id" TEXT NOT NULL,
    "frictionId" TEXT NOT NULL,
    "agentName" TEXT NOT NULL,
    "teamId" TEXT,
    "sessionRunId" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'DETECT',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "improverRunId" TEXT,
    "improvementId" TEXT,
    "evidence" TEXT NOT NULL DEFAULT '{}',
    "reason" TEXT,
    "deadlineAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "endedAt" TIMESTAMP(3),

    CONSTRAINT "HackCycle_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Improvement" (
    "id" TEXT NOT NULL,
    "tier" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'proposed',
    "stateReason" TEXT,
    "description" TEXT NOT NULL DEFAULT '',
    "source" TEXT NOT NULL,
    "argsSchema" TEXT,
    "capabilities" TEXT NOT NULL DEFAULT '[]',
    "replayClass" TEXT,
    "scopeAgents" TEXT NOT NULL DEFAULT '[]',
    "scopeTeams" TEXT NOT NULL DEFAULT '[]',
    "tags" TEXT NOT NULL DEFAULT '[]',
    "cases" TEXT NOT NULL DEFAULT '[]',
    "caseResults" TEXT,
    "review" TEXT,
    "frictionId" TEXT,
    "cycleId" TEXT,
    "authorRunId" TEXT,
    "createdById" TEXT,
    "costUsd" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "uses" INTEGER NOT NULL DEFAULT 0,
    "successes" INTEGER NOT NULL DEFAULT 0,
    "promoted" BOOLEAN NOT NULL DEFAULT false,
    "promotionAskedAt" TIMESTAMP(3),
    "expiresAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Improvement_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ImprovementUse" (
    "id" TEXT NOT NULL,
    "improvementId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "toolCallId" TEXT,
    "ok" BOOLEAN NOT NULL,
    "error" TEXT,
    "durationMs" INTEGER,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ImprovementUse_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Friction_lastSeenAt_idx" ON "Friction"("lastSeenAt");

-- CreateIndex
CREATE INDEX "Friction_agentName_idx" ON "Friction"("agentName");

-- CreateIndex
CREATE UNIQUE INDEX "Friction_kind_signature_agentName_key" ON "Friction"("kind", "signature", "agentName");

-- CreateIndex
CREATE INDEX "FrictionOccurrence_runId_idx" ON "FrictionOccurrence"("runId");

-- CreateIndex
CREATE INDEX "FrictionOccurrence_createdAt_idx" ON "FrictionOccurrence"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "FrictionOccurrence_frictionId_runId_key" ON "FrictionOccurrence"("frictionId", "runId");

-- CreateIndex
CREATE UNIQUE INDEX "HackCycle_improverRunId_key" ON "HackCycle"("improverRunId");

-- CreateIndex
CREATE INDEX "HackCycle_state_idx" ON "HackCycle"("state");

-- CreateIndex
CREATE INDEX "HackCycle_frictionId_idx" ON "HackCycle"("frictionId");

-- CreateIndex
CREATE INDEX "HackCycle_sessionRunId_idx" ON "HackCycle"("sessionRunId");

-- CreateIndex
CREATE INDEX "Improvement_state_idx" ON "Improvement"("state");

-- CreateIndex
CREATE INDEX "Improvement_kind_name_idx" ON "Improvement"("kind", "name");

-- CreateIndex
CREATE INDEX "Improvement_createdAt_idx" ON "Improvement"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Improvement_kind_name_version_key" ON "Improvement"("kind", "name", "version");

-- CreateIndex
CREATE INDEX "ImprovementUse_runId_idx" ON "ImprovementUse"("runId");

-- CreateIndex
CREATE INDEX "ImprovementUse_createdAt_idx" ON "ImprovementUse"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "ImprovementUse_improvementId_runId_toolCallId_key" ON "ImprovementUse"("improvementId", "runId", "toolCallId");

-- AddForeignKey
ALTER TABLE "FrictionOccurrence" ADD CONSTRAINT "FrictionOccurrence_frictionId_fkey" FOREIGN KEY ("frictionId") REFERENCES "Friction"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ImprovementUse" ADD CONSTRAINT "ImprovementUse_improvementId_fkey" FOREIGN KEY ("improvementId") REFERENCES "Improvement"("id") ON DELETE CASCADE ON UPDATE CASCADE;

