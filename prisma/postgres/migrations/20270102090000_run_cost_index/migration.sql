-- CreateIndex
CREATE INDEX "Run_costUsd_id_idx" ON "Run"("costUsd", "id");

