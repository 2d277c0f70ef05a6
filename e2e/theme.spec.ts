// Dark mode: the app follows the system until a person chooses; the choice in
// the user menu applies at once, survives a reload, and is applied by the
// inline script before any of the app's JavaScript runs (no light flash).
import { expect, test, type Page } from "@playwright/test";
import { login } from "./fixtures";

// --bg in each theme (app/globals.css).
const LIGHT_BG = "rgb(245, 246, 248)";
const DARK_BG = "rgb(14, 17, 22)";

async function expectTheme(page: Page, theme: "light" | "dark") {
  await expect(page.locator("html")).toHaveCSS("color-scheme", theme);
  await expect(page.locator("body")).toHaveCSS("background-color", theme === "dark" ? DARK_BG : LIGHT_BG);
}

async function choose(page: Page, label: "System" | "Light" | "Dark") {
  await page.getByTestId("user-menu").click();
  const toggle = page.getByTestId("theme-toggle");
  await toggle.getByText(label, { exact: true }).click();
  await expect(toggle.getByRole("radio", { name: label })).toBeChecked();
  await page.keyboard.press("Escape");
}

test.describe("with the system set to dark", () => {
  test.use({ colorScheme: "dark" });

  test("with no choice made the app is dark", async ({ page }) => {
    await login(page);
    await expect(page.locator("html")).not.toHaveAttribute("data-theme");
    await expectTheme(page, "dark");
    await page.getByTestId("user-menu").click();
    await expect(page.getByTestId("theme-toggle").getByRole("radio", { name: "System" })).toBeChecked();
  });

  test("choosing Light wins over the system, persists across a reload, and System goes back", async ({ page }) => {
    await login(page);
    await choose(page, "Light");
    await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
    await expectTheme(page, "light");
    await page.reload();
    await expectTheme(page, "light");
    await choose(page, "System");
    await expect(page.locator("html")).not.toHaveAttribute("data-theme");
    await expectTheme(page, "dark");
    expect(await page.evaluate(() => localStorage.getItem("rein-theme"))).toBeNull();
  });
});

test.describe("with the system set to light", () => {
  test.use({ colorScheme: "light" });

  test("the toggle switches to dark, the choice persists across a reload, and it works from the keyboard", async ({ page }) => {
    await login(page);
    await expectTheme(page, "light");
    await choose(page, "Dark");
    await expectTheme(page, "dark");
    expect(await page.evaluate(() => localStorage.getItem("rein-theme"))).toBe("dark");
    await page.reload();
    await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
    await expectTheme(page, "dark");

    // Arrow keys move between the three choices like any radio group.
    await page.getByTestId("user-menu").click();
    await page.getByTestId("theme-toggle").getByRole("radio", { name: "Dark" }).focus();
    await page.keyboard.press("ArrowLeft");
    await expect(page.getByTestId("theme-toggle").getByRole("radio", { name: "Light" })).toBeChecked();
    await expectTheme(page, "light");
  });

  test("a stored choice is applied before the app's scripts run", async ({ page }) => {
    await page.addInitScript(() => localStorage.setItem("rein-theme", "dark"));
    // Without the app's JavaScript only the inline script in <head> can set the theme.
    await page.route(/\/_next\/static\/.*\.js/, (route) => route.abort());
    await page.goto("/login");
    await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
    await expectTheme(page, "dark");
  });
});
