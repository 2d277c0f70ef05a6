// The palette's "Toggle dark mode": the other theme from the one shown now,
// remembered like a choice made in the user menu.
import { currentResolvedTheme, setTheme } from "@/components/theme";

export function toggleTheme() {
  setTheme(currentResolvedTheme() === "dark" ? "light" : "dark");
}
