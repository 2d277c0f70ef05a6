// Several processes (a web process and its workers) share one data
// directory. Each keeps its pods' and desktops' working folders under a folder
// of its own, named by its process id, so one that starts or stops never
// removes another's live pods. See docs/configuration.md#the-data-directory.
import fs from "node:fs";
import path from "node:path";
import { processAlive } from "@/server/config";

/** This process's folder under root. */
export function ownFolder(root: string): string {
  return path.join(root, `p${process.pid}`);
}

/** Removes this process's folder, and the root too when no other process has one there. */
export function removeOwnFolder(own: string): void {
  fs.rmSync(own, { recursive: true, force: true });
  try {
    fs.rmdirSync(path.dirname(own));
  } catch {
    /* another process's folder is there, or it is gone already */
  }
}

/**
 * Removes the folders of processes that are gone (a crash leaves its folder
 * behind), and whatever an older build left directly under the root. Folders
 * of live processes are theirs and stay.
 */
export function sweepDeadFolders(root: string): number {
  let removed = 0;
  let names: string[];
  try {
    names = fs.readdirSync(root);
  } catch {
    return 0;
  }
  for (const name of names) {
    const m = /^p(\d+)$/.exec(name);
    if (m && (Number(m[1]) === process.pid || processAlive(Number(m[1])))) continue;
    fs.rmSync(path.join(root, name), { recursive: true, force: true });
    removed++;
  }
  return removed;
}
