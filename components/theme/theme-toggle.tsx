"use client";
// System / Light / Dark as one radio group (arrow keys move between them).
import { THEME_CHOICES, type ThemeChoice } from "@/lib/theme";
import { useTheme } from "./use-theme";
import styles from "./theme-toggle.module.css";

const LABELS: Record<ThemeChoice, string> = { system: "System", light: "Light", dark: "Dark" };

export function ThemeToggle() {
  const { theme, setTheme } = useTheme();
  return (
    <fieldset className={styles.toggle} data-testid="theme-toggle">
      <legend className={styles.legend}>Theme</legend>
      <div className={styles.options}>
        {THEME_CHOICES.map((choice) => (
          <label key={choice} className={styles.option} data-checked={theme === choice || undefined}>
            <input
              type="radio"
              name="rein-theme"
              value={choice}
              checked={theme === choice}
              onChange={() => setTheme(choice)}
              className="sr-only"
              data-testid={`theme-${choice}`}
            />
            {LABELS[choice]}
          </label>
        ))}
      </div>
    </fieldset>
  );
}
