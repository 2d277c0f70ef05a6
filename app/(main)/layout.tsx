import type { ReactNode } from "react";
import { NewRunProvider } from "@/components/new-run";
import { TopNav } from "@/components/top-nav";

export default function MainLayout({ children }: { children: ReactNode }) {
  return (
    <NewRunProvider>
      <TopNav />
      <main>{children}</main>
    </NewRunProvider>
  );
}
