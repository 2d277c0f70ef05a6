// Raw SQL that runs on both databases: written with ? placeholders (SQLite's),
// numbered $1, $2, … for PostgreSQL. The statements here hold no literal "?".
import { dbDialect, type Db } from "@/server/db";

export function placeholders(db: Db, sql: string): string {
  if (dbDialect(db) !== "postgres") return sql;
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}
