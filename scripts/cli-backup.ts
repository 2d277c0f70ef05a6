// CLI commands for backup and restore (docs/operations.md#backup-and-restore): both work on the
// local data directory and database (REIN_DATA_DIR, DATABASE_URL), so they need no token; backup
// runs while Rein runs.
import path from "node:path";
import { backup, restore } from "@/server/backup";
import { loadDataConfig } from "@/server/config";
import { CliError } from "./cli-error";
import type { CliCommand } from "./cli-commands";

export const BACKUP_OPTIONS = {
  /** backup --with-keys: also the keys that open sealed secrets and sign sessions and links. */
  "with-keys": { type: "boolean" },
} as const;

const megabytes = (bytes: number) => `${(bytes / 1_000_000).toFixed(1)} MB`;

export const BACKUP_COMMANDS: CliCommand[] = [
  {
    command: "backup",
    usage: "FILE [--with-keys]",
    description:
      "Copy this installation into FILE while it runs: the database (consistent), workspaces, snapshots, repositories. Keys only with --with-keys: whoever holds them can read the secrets and sign in as anyone.",
    local: true,
    async run({ args, values }) {
      const file = args[0];
      if (!file) throw new CliError("backup needs the FILE to write, e.g. npm run rein -- backup rein-backup.tar.gz");
      const { dataDir, databaseUrl } = loadDataConfig();
      const made = await backup({ dataDir, databaseUrl, file, withKeys: values["with-keys"] });
      const m = made.manifest;
      console.log(`Backed up to ${made.file} (${megabytes(made.bytes)})`);
      console.log(
        `  the database${m.database === "postgres" ? ` (PostgreSQL, the schema ${m.schema})` : ""}, at ${m.migrations.length} migrations`,
      );
      console.log(
        m.keys
          ? "  with the keys: keep this file as safe as the server itself"
          : `  without the keys${m.sealed ? `: keep secret.key of ${dataDir} apart, to open the ${m.sealed} sealed value(s) after a restore` : ""}`,
      );
    },
  },
  {
    command: "restore",
    usage: "FILE",
    description:
      "Bring a backup back into an empty data directory (REIN_DATA_DIR), then start Rein: it applies any newer migrations, and runs that were waiting wait again.",
    local: true,
    async run({ args }) {
      const file = args[0];
      if (!file) throw new CliError("restore needs the backup FILE, e.g. npm run rein -- restore rein-backup.tar.gz");
      const { dataDir, databaseUrl } = loadDataConfig();
      const { manifest, warnings } = await restore({ file, dataDir, databaseUrl, migrationsDir: path.resolve("prisma", "migrations") });
      console.log(`Restored the backup of ${manifest.createdAt} into ${dataDir}`);
      for (const w of warnings) console.log(`  ${w}`);
      console.log(
        "Start Rein (npm start): runs that were waiting for a person wait again, and runs in progress resume from their last step.",
      );
    },
  },
];
