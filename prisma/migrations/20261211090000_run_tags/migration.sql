-- CreateTable
CREATE TABLE "RunTag" (
    "runId" TEXT NOT NULL,
    "tag" TEXT NOT NULL,

    PRIMARY KEY ("runId", "tag"),
    CONSTRAINT "RunTag_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "RunTag_tag_idx" ON "RunTag"("tag");

