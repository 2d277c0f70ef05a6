// The inline script in <head> that applies a stored theme before first paint
// (no flash of light). Rein sets no Content-Security-Policy for its pages; if
// one is added, allow this script by its hash or a nonce.
import { THEME_SCRIPT } from "@/lib/theme";

export function ThemeScript() {
  return <script dangerouslySetInnerHTML={{ __html: THEME_SCRIPT }} />;
}
