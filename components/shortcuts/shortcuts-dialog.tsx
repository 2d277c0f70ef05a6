"use client";
// "?" on any page: the app's shortcuts, then those of the page on screen.
import { usePathname } from "next/navigation";
import { useEffect, useState } from "react";
import { Dialog } from "@/components/ui";
import { typingIn } from "@/lib/keyboard";
import { GLOBAL_SHORTCUTS, LIST_SHORTCUTS, type ShortcutGroup } from "@/lib/shortcuts";
import { SHOW_SHORTCUTS_EVENT, useShortcutGroups } from "./use-shortcuts";
import styles from "./shortcuts.module.css";

export function ShortcutsHost() {
  const [open, setOpen] = useState(false);
  const [hasList, setHasList] = useState(false);
  const pages = useShortcutGroups();
  const pathname = usePathname();

  useEffect(() => setOpen(false), [pathname]);
  useEffect(() => {
    const show = () => {
      // A list marked for j/k on screen gets its keys listed too.
      setHasList(!!document.querySelector("main [data-list-row]"));
      setOpen(true);
    };
    const onKey = (e: KeyboardEvent) => {
      if (
        e.key !== "?" ||
        e.defaultPrevented ||
        e.ctrlKey ||
        e.metaKey ||
        e.altKey ||
        typingIn(e.target) ||
        document.querySelector("dialog[open]")
      )
        return;
      e.preventDefault();
      show();
    };
    window.addEventListener("keydown", onKey);
    window.addEventListener(SHOW_SHORTCUTS_EVENT, show);
    return () => {
      window.removeEventListener("keydown", onKey);
      window.removeEventListener(SHOW_SHORTCUTS_EVENT, show);
    };
  }, []);

  const groups: ShortcutGroup[] = [
    { title: "Everywhere", shortcuts: GLOBAL_SHORTCUTS },
    ...pages,
    ...(hasList ? [{ title: "This list", shortcuts: LIST_SHORTCUTS }] : []),
  ];
  return <ShortcutsDialog open={open} onClose={() => setOpen(false)} groups={groups} />;
}

export function ShortcutsDialog({ open, onClose, groups }: { open: boolean; onClose(): void; groups: readonly ShortcutGroup[] }) {
  return (
    <Dialog open={open} onClose={onClose} size="sm" labelledBy="shortcuts-title" testId="shortcuts-dialog">
      <div className="dialog-form">
        <div className="dialog-header">
          <h2 id="shortcuts-title">Keyboard shortcuts</h2>
        </div>
        <div className="dialog-body">
          {groups.map((g) => (
            <section
              key={g.title}
              className={styles.group}
              aria-labelledby={`shortcuts-${slug(g.title)}`}
              data-testid="shortcuts-group"
              data-title={g.title}
            >
              <h3 id={`shortcuts-${slug(g.title)}`} className={styles.title}>
                {g.title}
              </h3>
              <dl className={styles.keys}>
                {g.shortcuts.map((s) => (
                  <div key={s.keys.join(" ")} style={{ display: "contents" }}>
                    <dt>
                      {s.keys.map((k, i) => (
                        <kbd key={i}>{k}</kbd>
                      ))}
                    </dt>
                    <dd>{s.what}</dd>
                  </div>
                ))}
              </dl>
            </section>
          ))}
          <p className="hint">Single-key shortcuts are off while you type in a field.</p>
        </div>
        <div className="dialog-footer">
          <span className="spacer" />
          <button type="button" className="btn btn-primary" onClick={onClose} autoFocus>
            Close
          </button>
        </div>
      </div>
    </Dialog>
  );
}

function slug(title: string) {
  return title.toLowerCase().replace(/[^a-z0-9]+/g, "-");
}
