-- CreateTable
CREATE TABLE "PolicyDocument" (
    "id" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "source" TEXT NOT NULL,
    "comment" TEXT NOT NULL DEFAULT '',
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PolicyDocument_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "HumanRequest" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "nodeId" TEXT NOT NULL,
    "checkpointId" TEXT NOT NULL,
    "slot" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'PENDING',
    "title" TEXT NOT NULL,
    "detail" TEXT NOT NULL DEFAULT '',
    "payload" TEXT NOT NULL,
    "requiredRole" TEXT NOT NULL DEFAULT 'approver',
    "teamId" TEXT,
    "requestedById" TEXT,
    "level" INTEGER NOT NULL DEFAULT 1,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "hardExpiresAt" TIMESTAMP(3) NOT NULL,
    "nextActionAt" TIMESTAMP(3),
    "decision" TEXT,
    "decidedById" TEXT,
    "decidedAt" TIMESTAMP(3),
    "channel" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "HumanRequest_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ResumeToken" (
    "id" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "requestId" TEXT NOT NULL,
    "keyId" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "consumedAt" TIMESTAMP(3),
    "consumedById" TEXT,

    CONSTRAINT "ResumeToken_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AuditEntry" (
    "id" SERIAL NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "kind" TEXT NOT NULL,
    "actorId" TEXT,
    "actorName" TEXT,
    "onBehalfOf" TEXT,
    "channel" TEXT,
    "runId" TEXT,
    "requestId" TEXT,
    "subject" TEXT,
    "fromState" TEXT,
    "toState" TEXT,
    "detail" TEXT NOT NULL DEFAULT '{}',

    CONSTRAINT "AuditEntry_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "PolicyDocument_version_key" ON "PolicyDocument"("version");

-- CreateIndex
CREATE INDEX "HumanRequest_state_idx" ON "HumanRequest"("state");

-- CreateIndex
CREATE INDEX "HumanRequest_nextActionAt_idx" ON "HumanRequest"("nextActionAt");

-- CreateIndex
CREATE INDEX "HumanRequest_runId_idx" ON "HumanRequest"("runId");

-- CreateIndex
CREATE UNIQUE INDEX "HumanRequest_runId_nodeId_slot_key" ON "HumanRequest"("runId", "nodeId", "slot");

-- CreateIndex
CREATE UNIQUE INDEX "ResumeToken_tokenHash_key" ON "ResumeToken"("tokenHash");

-- CreateIndex
CREATE INDEX "ResumeToken_requestId_idx" ON "ResumeToken"("requestId");

-- CreateIndex
CREATE INDEX "AuditEntry_at_idx" ON "AuditEntry"("at");

-- CreateIndex
CREATE INDEX "AuditEntry_kind_idx" ON "AuditEntry"("kind");

-- CreateIndex
CREATE INDEX "AuditEntry_runId_idx" ON "AuditEntry"("runId");

-- CreateIndex
CREATE INDEX "AuditEntry_requestId_idx" ON "AuditEntry"("requestId");

