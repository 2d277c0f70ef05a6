// What a noVNC canvas shows, for the desktop tests: read from its pixels.
import { expect, type Locator, type Page } from "@playwright/test";

/** The canvas pixels as noVNC drew them: how many differ from the first one, and the colour in the middle. */
export async function canvasFacts(canvas: Locator) {
  return canvas.evaluate((el: HTMLCanvasElement) => {
    const ctx = el.getContext("2d")!;
    const { data, width, height } = ctx.getImageData(0, 0, el.width, el.height);
    let differing = 0;
    for (let i = 0; i < data.length; i += 16) {
      if (data[i] !== data[0] || data[i + 1] !== data[1] || data[i + 2] !== data[2]) differing++;
    }
    // The commonest colour around the middle (a letter of the button's label may sit right on it).
    const patch = ctx.getImageData(Math.floor(el.width / 2) - 10, Math.floor(el.height / 2) - 10, 21, 21).data;
    const counts = new Map<string, number>();
    for (let i = 0; i < patch.length; i += 4) {
      const key = `${patch[i]},${patch[i + 1]},${patch[i + 2]}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    const common = [...counts.entries()]
      .sort((x, y) => y[1] - x[1])[0][0]
      .split(",")
      .map(Number);
    return { width, height, share: differing / (data.length / 16), middle: common as [number, number, number] };
  });
}

/** The demo site's Confirm button: grey until a person presses it, green after (#5b6472, #1f8f4e). */
export const isGreen = ([r, g, b]: number[]) => g > 120 && g > r + 50 && g > b + 30;
export const isGrey = ([r, g, b]: number[]) => Math.abs(r - 91) < 25 && Math.abs(g - 100) < 25 && Math.abs(b - 114) < 25;

/** Opens the run's Desktop tab and waits until noVNC is connected; the canvas it draws on. */
export async function openDesktop(page: Page) {
  await page.getByTestId("tab-desktop").click();
  await expect(page).toHaveURL(/tab=desktop/);
  await expect(page.getByTestId("desktop-state")).toHaveAttribute("data-state", "live", { timeout: 30_000 });
  return page.getByTestId("desktop-screen").locator("canvas");
}
