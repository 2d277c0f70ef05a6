// Rein's CLI: `npm run rein -- <command>`; `npm run rein -- --help` lists the
// commands. Every command is an entry of the table in ./cli-commands.ts; the
// API commands talk to REST v1 at REIN_URL with REIN_TOKEN (or --url, --token).
import { errorOutput } from "./cli-error";
import { main } from "./cli-commands";

main(process.argv.slice(2)).catch((err) => {
  console.error(errorOutput(err));
  process.exit(1);
});
