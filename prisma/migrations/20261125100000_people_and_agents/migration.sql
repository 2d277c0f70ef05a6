-- AlterTable
ALTER TABLE "Team" ADD COLUMN "archivedAt" DATETIME;

-- CreateTable
CREATE TABLE "Invitation" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tokenHash" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "userId" TEXT,
    "role" TEXT NOT NULL DEFAULT 'viewer',
    "teamId" TEXT,
    "teamRole" TEXT,
    "expiresAt" DATETIME NOT NULL,
    "createdById" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "consumedAt" DATETIME,
    "revokedAt" DATETIME
);

-- CreateTable
CREATE TABLE "Agent" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "teamId" TEXT,
    "builtIn" BOOLEAN NOT NULL DEFAULT false,
    "archivedAt" DATETIME,
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_User" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "passwordHash" TEXT NOT NULL,
    "role" TEXT NOT NULL DEFAULT 'viewer',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "disabledAt" DATETIME,
    "sessionVersion" INTEGER NOT NULL DEFAULT 0,
    "lastSeenAt" DATETIME,
    "lastTeamId" TEXT
);
INSERT INTO "new_User" ("createdAt", "disabledAt", "email", "id", "name", "passwordHash", "role") SELECT "createdAt", "disabledAt", "email", "id", "name", "passwordHash", "role" FROM "User";
DROP TABLE "User";
ALTER TABLE "new_User" RENAME TO "User";
CREATE UNIQUE INDEX "User_email_key" ON "User"("email");
CREATE TABLE "new_TeamMember" (
    "teamId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "role" TEXT NOT NULL DEFAULT 'viewer',
    "addedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("teamId", "userId"),
    CONSTRAINT "TeamMember_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "Team" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "TeamMember_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_TeamMember" ("teamId", "userId") SELECT "teamId", "userId" FROM "TeamMember";
DROP TABLE "TeamMember";
ALTER TABLE "new_TeamMember" RENAME TO "TeamMember";
CREATE INDEX "TeamMember_userId_idx" ON "TeamMember"("userId");
CREATE TABLE "new_AgentSpec" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "instructions" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "taskClass" TEXT NOT NULL DEFAULT 'code',
    "tools" TEXT NOT NULL,
    "handoffs" TEXT NOT NULL DEFAULT '[]',
    "guardrails" TEXT NOT NULL DEFAULT '{}',
    "tier" TEXT NOT NULL DEFAULT 'T1',
    "builtIn" BOOLEAN NOT NULL DEFAULT false,
    "draft" BOOLEAN NOT NULL DEFAULT false,
    "changeNote" TEXT NOT NULL DEFAULT '',
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
INSERT INTO "new_AgentSpec" ("builtIn", "createdAt", "description", "guardrails", "handoffs", "id", "instructions", "model", "name", "taskClass", "tier", "tools", "version") SELECT "builtIn", "createdAt", "description", "guardrails", "handoffs", "id", "instructions", "model", "name", "taskClass", "tier", "tools", "version" FROM "AgentSpec";
DROP TABLE "AgentSpec";
ALTER TABLE "new_AgentSpec" RENAME TO "AgentSpec";
CREATE UNIQUE INDEX "AgentSpec_name_version_key" ON "AgentSpec"("name", "version");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE UNIQUE INDEX "Invitation_tokenHash_key" ON "Invitation"("tokenHash");

-- CreateIndex
CREATE INDEX "Invitation_email_idx" ON "Invitation"("email");

