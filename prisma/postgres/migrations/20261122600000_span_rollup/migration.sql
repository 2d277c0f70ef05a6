-- CreateTable
CREATE TABLE "SpanRollup" (
    "day" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "bucket" INTEGER NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,
    "errors" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "SpanRollup_pkey" PRIMARY KEY ("day","kind","name","bucket")
);

-- CreateIndex
CREATE INDEX "SpanRollup_kind_day_idx" ON "SpanRollup"("kind", "day");

-- CreateIndex
CREATE INDEX "HumanRequest_createdAt_idx" ON "HumanRequest"("createdAt");

