// A Rein process that commits a run event through its run store and is
// SIGKILLed at once, before anything could send what the event reports:
//   node --import tsx test/helpers/commit-and-die.ts <DATABASE_URL> <runId>
import { openNativeSqlite } from "@/server/db";
import { SqliteRunStore } from "@/server/kernel";

async function main() {
  const [url, runId] = process.argv.slice(2);
  const store = new SqliteRunStore(openNativeSqlite(url));
  const moved = await store.transition(runId, ["queued"], "canceled", { reason: "Canceled by a process that then died" });
  if (!moved) {
    console.error(`run ${runId} was not queued`);
    process.exit(2);
  }
  process.kill(process.pid, "SIGKILL");
}

void main();
