import type { ReactNode } from "react";
import { NewRunProvider } from "@/components/new-run";
import { TopNav } from "@/components/top-nav";
import { SandboxBanner } from "@/components/sandbox-banner";
import { KeyboardLayer } from "@/components/shortcuts/keyboard-layer";

export default function MainLayout({ children }: { children: ReactNode }) {
  return (
    <NewRunProvider>
      <TopNav />
      <SandboxBanner />
      <main>{children}</main>
      <KeyboardLayer />
    </NewRunProvider>
  );
}
