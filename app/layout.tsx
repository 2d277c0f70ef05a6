import type { Metadata, Viewport } from "next";
import type { ReactNode } from "react";
import { Providers } from "@/components/providers";
import { ThemeScript } from "@/components/theme";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Rein", template: "%s · Rein" },
  description: "Run autonomous agents and watch them work",
};

// The browser's own chrome follows the system; the page's colours come from the tokens in globals.css.
export const viewport: Viewport = {
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "white" },
    { media: "(prefers-color-scheme: dark)", color: "rgb(23, 27, 34)" },
  ],
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    // The inline script sets data-theme on <html> before hydration, so React must not mind it.
    <html lang="en" suppressHydrationWarning>
      <head>
        <ThemeScript />
      </head>
      <body>
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
