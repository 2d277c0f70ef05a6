-- CreateIndex
CREATE INDEX "Run_createdAt_status_idx" ON "Run"("createdAt", "status");

