// The environments behind the tiers, as the tier controller uses them: T1's
// terminal pods and T2's desktops (server/compute), and what joins a desktop
// to the run's workspace.
import type { Page } from "playwright-core";
import type { DesktopPool, TerminalProvider } from "@/server/compute";

/** The desktop pool as tiers use it (DesktopPool; fakes in tests). */
export type DesktopProvider = Pick<DesktopPool, "unavailable" | "attach" | "get" | "release" | "onReleased" | "setSize">;

/** The terminal pod pool as tiers use it (PodPool). */
export type TerminalPods = TerminalProvider & { setSize?(n: number): void };

const joined = new WeakSet<Page>();

/**
 * Makes the run's workspace the browser's download directory, once per page
 * (a restarted Chromium comes with a new page, and gets it again).
 */
export async function joinWorkspace(page: Page, workspaceDir: string): Promise<void> {
  if (joined.has(page)) return;
  const browser = page.context().browser();
  if (!browser) return;
  // The session stays open: Chromium forgets the download directory when the session that set it detaches.
  const session = await browser.newBrowserCDPSession();
  await session.send("Browser.setDownloadBehavior", { behavior: "allow", downloadPath: workspaceDir, eventsEnabled: true });
  joined.add(page);
}
