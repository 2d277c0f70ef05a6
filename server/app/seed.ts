// What every Rein process makes sure of as it starts, before it serves: the default team and the first
// admin, the built-in agents, the demo datasets and the demo repository. Each step only adds what is
// missing, and one process at a time runs them on a shared database, so any number of web processes
// and workers can start at the same moment (docs/operations.md#processes-that-start-together).
import { oneProcessAtATime, type Db } from "@/server/db";
import { seedBuiltinDatasets } from "@/server/evals";
import { bootstrapAdmin, type BootstrapResult } from "@/server/identity";
import { seedDemoRepository } from "@/server/improve";
import { seedBuiltinSpecs } from "@/server/kernel";
import type { Log } from "./compose";

export interface SeedOptions {
  databaseUrl: string;
  dataDir: string;
  adminEmail?: string;
  adminPassword?: string;
}

/** Seeds the database; the first admin is returned when this call created one. */
export function seedDatabase(db: Db, options: SeedOptions, log: Log): Promise<BootstrapResult | null> {
  const waiting = () => log.info("Another Rein process is setting up this database; waiting for it to finish");
  return oneProcessAtATime(options.databaseUrl, waiting, async () => {
    const admin = await bootstrapAdmin(db, { email: options.adminEmail, password: options.adminPassword });
    await seedBuiltinSpecs(db);
    await seedBuiltinDatasets(db);
    // The demo repository for reviewed changes; without git the rest of Rein still starts.
    await seedDemoRepository(db, options.dataDir).catch((err) => log.error("the demo repository could not be set up", err));
    return admin;
  });
}
