-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_ChangeRequest" (
    "id" TEXT NOT NULL PRIMARY KEY,
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
    "teamId" TEXT,
    "stateReason" TEXT NOT NULL DEFAULT '',
    "testedOn" TEXT,
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "ChangeRequest_repositoryId_fkey" FOREIGN KEY ("repositoryId") REFERENCES "Repository" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_ChangeRequest" ("approvalRequestId", "authorRunId", "baseCommit", "branch", "checks", "createdAt", "createdById", "cycleId", "diffStat", "files", "frictionId", "headCommit", "hypothesis", "id", "mergeCommit", "repositoryId", "revertCommit", "state", "title", "updatedAt") SELECT "approvalRequestId", "authorRunId", "baseCommit", "branch", "checks", "createdAt", "createdById", "cycleId", "diffStat", "files", "frictionId", "headCommit", "hypothesis", "id", "mergeCommit", "repositoryId", "revertCommit", "state", "title", "updatedAt" FROM "ChangeRequest";
DROP TABLE "ChangeRequest";
ALTER TABLE "new_ChangeRequest" RENAME TO "ChangeRequest";
CREATE INDEX "ChangeRequest_repositoryId_state_idx" ON "ChangeRequest"("repositoryId", "state");
CREATE INDEX "ChangeRequest_state_idx" ON "ChangeRequest"("state");
CREATE INDEX "ChangeRequest_createdAt_idx" ON "ChangeRequest"("createdAt");
CREATE INDEX "ChangeRequest_authorRunId_idx" ON "ChangeRequest"("authorRunId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

