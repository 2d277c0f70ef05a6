-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "costUsd" DOUBLE PRECISION NOT NULL DEFAULT 0,
ADD COLUMN     "tracedSeq" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "Span" (
    "spanId" TEXT NOT NULL,
    "traceId" TEXT NOT NULL,
    "parentSpanId" TEXT,
    "runId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "startTime" TIMESTAMP(3) NOT NULL,
    "endTime" TIMESTAMP(3),
    "status" TEXT NOT NULL DEFAULT 'unset',
    "teamId" TEXT,
    "workflowId" TEXT NOT NULL,
    "userId" TEXT,
    "model" TEXT,
    "tool" TEXT,
    "inputTokens" INTEGER NOT NULL DEFAULT 0,
    "outputTokens" INTEGER NOT NULL DEFAULT 0,
    "cachedInputTokens" INTEGER NOT NULL DEFAULT 0,
    "costUsd" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "attributes" TEXT NOT NULL,
    "detail" TEXT,

    CONSTRAINT "Span_pkey" PRIMARY KEY ("spanId")
);

-- CreateTable
CREATE TABLE "ModelPrice" (
    "model" TEXT NOT NULL,
    "inputPerMTok" DOUBLE PRECISION NOT NULL,
    "outputPerMTok" DOUBLE PRECISION NOT NULL,
    "cacheReadPerMTok" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "cacheWritePerMTok" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "updatedById" TEXT,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ModelPrice_pkey" PRIMARY KEY ("model")
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
    "costUsd" DOUBLE PRECISION NOT NULL DEFAULT 0,

    CONSTRAINT "CostRollup_pkey" PRIMARY KEY ("day","teamId","workflowId","model")
);

-- CreateIndex
CREATE INDEX "Span_runId_startTime_idx" ON "Span"("runId", "startTime");

-- CreateIndex
CREATE INDEX "Span_startTime_idx" ON "Span"("startTime");

-- CreateIndex
CREATE INDEX "Span_kind_startTime_idx" ON "Span"("kind", "startTime");

-- CreateIndex
CREATE INDEX "CostRollup_day_idx" ON "CostRollup"("day");

