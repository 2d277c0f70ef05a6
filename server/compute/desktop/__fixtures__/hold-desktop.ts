// Stands in for a Rein server that is killed with its desktop running: starts
// a desktop in the directory given, prints what it started as one JSON line,
// and waits to be killed.
import { OperativeDesktop } from "../desktop";
import { groupMembers, processesMentioning } from "../processes";

async function main() {
  const desktop = await OperativeDesktop.start({ dir: process.argv[2], width: 800, height: 600 });
  // The page makes Chromium draw, so x11vnc has the screen's shared memory in use.
  const page = await desktop.page();
  await page.setContent("<h1>left behind</h1>");
  const leaders = desktop.processes().map((p) => p.pid);
  const pids = [...new Set([...leaders.flatMap((pid) => [pid, ...groupMembers(pid)]), ...processesMentioning(desktop.dir + "/")])];
  console.log(JSON.stringify({ display: Number(desktop.display.slice(1)), leaders, pids }));
  setInterval(() => {}, 1 << 30);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
