// The environments behind the tiers, as the tier controller uses them: T1's
// terminal pods and T2's desktops (server/compute), and what joins a desktop
// to the run's workspace.
import fs from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import type { Workspace } from "@/server/tools";
import type { DesktopDownloads, DesktopPool, PodPool, TerminalProvider } from "@/server/compute";
import { DOWNLOAD_ID, removeDownload, takeDownload } from "./downloads";

/** The desktop pool as tiers use it (DesktopPool; fakes in tests). */
export type DesktopProvider = Pick<DesktopPool, "unavailable" | "attach" | "get" | "release" | "onReleased" | "setSize">;

/** The terminal pod pool as tiers use it (PodPool); `adopt` makes a machine's pod the run's terminal (T3). */
export type TerminalPods = TerminalProvider & { setSize?(n: number): void; adopt?: PodPool["adopt"] };

const joined = new WeakSet<Page>();

/**
 * Makes the run's workspace where the browser's downloads land, once per page
 * (a restarted Chromium comes with a new page, and gets it again). Chromium
 * saves each download under its id in the desktop's downloads folder (the
 * only one of its sandbox Rein reads); a finished download is copied, without
 * following links, to a folder of Rein's beside the workspace, and from there
 * into the workspace through the sandbox (the agent may have put a symlink
 * under the download's name).
 */
export async function joinWorkspace(
  page: Page,
  workspace: Workspace,
  downloads: DesktopDownloads,
  log?: { error(m: string, e?: unknown): void },
): Promise<void> {
  if (joined.has(page)) return;
  const browser = page.context().browser();
  if (!browser) return;
  const kept = path.join(workspace.outputsDir, "downloads");
  fs.mkdirSync(kept, { recursive: true, mode: 0o700 });
  // The session stays open: Chromium forgets the download directory when the session that set it detaches.
  const session = await browser.newBrowserCDPSession();
  const names = new Map<string, string>();
  session.on("Browser.downloadWillBegin", (e: { guid: string; suggestedFilename: string }) => names.set(e.guid, e.suggestedFilename));
  session.on("Browser.downloadProgress", (e: { guid: string; state: string }) => {
    if (e.state !== "completed" && e.state !== "canceled") return;
    // The id names a file in the downloads folder, and nothing outside it.
    if (!DOWNLOAD_ID.test(e.guid)) return void log?.error(`a download with the id ${JSON.stringify(e.guid)} was ignored`);
    const saved = path.join(downloads.hostDir, e.guid);
    const file = path.join(kept, e.guid);
    const name = names.get(e.guid) ?? "download";
    names.delete(e.guid);
    if (e.state === "canceled") return void removeDownload(saved);
    takeDownload(saved, file)
      .then(() => workspace.importFile(file, name))
      .catch((err) => log?.error(`a download (${name}) could not be copied into the workspace`, err))
      .finally(() => Promise.all([removeDownload(saved), removeDownload(file)]));
  });
  await session.send("Browser.setDownloadBehavior", { behavior: "allowAndName", downloadPath: downloads.browserDir, eventsEnabled: true });
  joined.add(page);
}
