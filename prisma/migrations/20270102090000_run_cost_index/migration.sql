-- The Runs list sorted by cost reads its first page from this index instead of
-- sorting every run (docs/performance.md#a-year-of-data). An index only: no
-- table is rewritten; on a year of runs (100,000) it is built in about a second.
CREATE INDEX "Run_costUsd_id_idx" ON "Run"("costUsd", "id");
