import type { ReactNode } from "react";
import { SettingsNav } from "@/components/settings/settings-nav";
import styles from "@/components/settings/settings-nav.module.css";

export default function SettingsLayout({ children }: { children: ReactNode }) {
  return (
    <div className={styles.layout}>
      <SettingsNav />
      <div className={styles.content}>{children}</div>
    </div>
  );
}
