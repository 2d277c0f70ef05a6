import path from "node:path";
import { defineConfig } from "prisma/config";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";

// Prisma runs offline with its JavaScript engine and driver adapters.
const url = process.env.DATABASE_URL ?? "file:./data/rein.db";
const postgres = url.startsWith("postgres");

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: postgres ? path.join("prisma", "postgres", "schema.prisma") : path.join("prisma", "schema.prisma"),
  migrations: { path: postgres ? path.join("prisma", "postgres", "migrations") : path.join("prisma", "migrations") },
  adapter: async () => (postgres ? new PrismaPg({ connectionString: url }) : new PrismaBetterSQLite3({ url })),
});
