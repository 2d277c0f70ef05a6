// The role journeys' checkpoints (docs/getting-started.md#a-tour-by-role): the
// screen a person reaches is looked at 1440 and 1024 pixels wide, light and
// dark. Nothing is wider than the window, and what the journey asserts holds
// at each size. With REIN_DOCS_SCREENSHOTS set to a folder (npm run
// docs:screenshot), the 1440-pixel light view is saved there as
// journey-<name>.png for the docs.
import path from "node:path";
import { expect, type Page } from "@playwright/test";

const SIZES = [1440, 1024] as const;
const THEMES = ["light", "dark"] as const;

export async function atEverySize(page: Page, name: string, check: (page: Page) => Promise<void> = async () => {}) {
  const before = page.viewportSize();
  for (const theme of THEMES) {
    await page.emulateMedia({ colorScheme: theme });
    await expect(page.locator("html")).toHaveCSS("color-scheme", theme);
    for (const width of SIZES) {
      await page.setViewportSize({ width, height: 900 });
      await check(page);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${name} at ${width} px, ${theme}: the page is wider than the window`).toBeLessThanOrEqual(0);
      const dir = process.env.REIN_DOCS_SCREENSHOTS;
      if (dir && theme === "light" && width === 1440) await page.screenshot({ path: path.join(dir, `journey-${name}.png`) });
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  if (before) await page.setViewportSize(before);
}
