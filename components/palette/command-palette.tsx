"use client";
// Ctrl+K (⌘K on a Mac) from any page: go to a page, Settings section, run or
// agent by typing part of its name, or start a run, switch the theme, list the keys.
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { useNewRun } from "@/components/new-run";
import { showShortcuts } from "@/components/shortcuts/use-shortcuts";
import { roleAtLeast, useMe } from "@/lib/access";
import { fuzzyFilter } from "@/lib/fuzzy";
import { entryText, staticEntries, type PaletteEntry } from "./entries";
import { toggleTheme } from "./toggle-theme";
import { usePaletteSearch } from "./use-palette-search";
import styles from "./palette.module.css";

/** Keys inside these belong to them: Monaco's Ctrl+K chords, the shell's Ctrl+K, the remote desktop. */
const OWN_KEYS = ".monaco-editor, .xterm, .desktop-screen";

export function CommandPalette() {
  const [open, setOpen] = useState(false);
  const returnTo = useRef<HTMLElement | null>(null);

  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key.toLowerCase() !== "k" || !(e.ctrlKey || e.metaKey) || e.altKey || e.shiftKey || e.defaultPrevented) return;
      if (e.target instanceof Element && e.target.closest(OWN_KEYS)) return;
      const palette = document.querySelector("dialog[data-palette]");
      if (document.querySelector("dialog[open]") && !palette?.hasAttribute("open")) return;
      e.preventDefault();
      setOpen((was) => {
        if (!was) returnTo.current = document.activeElement as HTMLElement | null;
        return !was;
      });
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  const close = useCallback(() => setOpen(false), []);
  return <PaletteDialog open={open} onClose={close} returnTo={returnTo} />;
}

function PaletteDialog({ open, onClose, returnTo }: { open: boolean; onClose(): void; returnTo: React.RefObject<HTMLElement | null> }) {
  const ref = useRef<HTMLDialogElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(0);
  const router = useRouter();
  const { openNewRun } = useNewRun();
  const { me, canOperate } = useMe();
  const isAdmin = roleAtLeast(me?.role, "admin");
  const search = usePaletteSearch(query, open);

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    if (open && !el.open) {
      setQuery("");
      setActive(0);
      el.showModal();
      input.current?.focus();
    }
    if (!open && el.open) {
      el.close();
      // Focus goes back where it was (a field keeps what was typed in it).
      const back = returnTo.current;
      if (back?.isConnected) back.focus();
    }
  }, [open, returnTo]);

  const statics = useMemo(() => staticEntries({ isAdmin, canOperate }), [isAdmin, canOperate]);
  const entries = useMemo(() => [...fuzzyFilter(query, statics, entryText), ...search.entries], [query, statics, search.entries]);
  useEffect(() => setActive(0), [query]);
  const current = Math.min(active, entries.length - 1);

  function choose(entry: PaletteEntry | undefined) {
    if (!entry) return;
    onClose();
    if (entry.href) router.push(entry.href);
    else if (entry.action === "new-run") openNewRun();
    else if (entry.action === "toggle-theme") toggleTheme();
    else if (entry.action === "show-shortcuts") showShortcuts();
  }

  function onKeyDown(e: KeyboardEvent<HTMLInputElement>) {
    const step = e.key === "ArrowDown" ? 1 : e.key === "ArrowUp" ? -1 : 0;
    if (step && entries.length > 0) {
      e.preventDefault();
      // From the latest state: keys pressed faster than the list renders each count.
      const n = entries.length;
      setActive((was) => (Math.min(Math.max(was, 0), n - 1) + step + n) % n);
    } else if (e.key === "Enter") {
      e.preventDefault();
      choose(entries[current]);
    }
  }

  useEffect(() => {
    if (current >= 0) document.getElementById(optionId(current))?.scrollIntoView({ block: "nearest" });
  }, [current]);

  let lastGroup = "";
  return (
    <dialog
      ref={ref}
      className={`dialog ${styles.palette}`}
      role="dialog"
      aria-modal="true"
      aria-label="Command palette"
      data-palette=""
      data-testid="command-palette"
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
      onClick={(e) => {
        if (e.target === ref.current) onClose();
      }}
    >
      {open && (
        <div className={styles.body}>
          <input
            ref={input}
            className={styles.input}
            role="combobox"
            aria-expanded="true"
            aria-controls="palette-list"
            aria-autocomplete="list"
            aria-activedescendant={current >= 0 ? optionId(current) : undefined}
            aria-label="Go to a page, run or agent, or run a command"
            placeholder="Go to a page, run or agent, or type a command…"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            onKeyDown={onKeyDown}
            autoComplete="off"
            spellCheck={false}
            data-testid="palette-input"
          />
          <ul id="palette-list" role="listbox" aria-label="Results" className={styles.list}>
            {entries.map((entry, i) => {
              const heading = entry.group !== lastGroup;
              lastGroup = entry.group;
              return (
                <li
                  key={entry.id}
                  id={optionId(i)}
                  role="option"
                  aria-selected={i === current}
                  className={styles.option}
                  data-group-start={heading ? entry.group : undefined}
                  data-testid="palette-option"
                  data-entry={entry.id}
                  onMouseMove={() => i !== current && setActive(i)}
                  onClick={() => choose(entry)}
                >
                  <span className={styles.label}>{entry.label}</span>
                  {entry.detail && entry.group !== "Actions" && entry.group !== "Pages" && (
                    <span className={styles.detail}>{entry.detail}</span>
                  )}
                  <span className={styles.group}>{entry.group}</span>
                </li>
              );
            })}
          </ul>
          <div className={styles.status} role="status" data-testid="palette-status">
            {search.error ? (
              <span className={styles.error}>Could not search runs and agents: {search.error}</span>
            ) : search.pending ? (
              "Searching runs and agents…"
            ) : entries.length === 0 ? (
              `Nothing matches “${query.trim()}”. Try part of a page name, a run's goal or id, or an agent's name.`
            ) : (
              <>
                <kbd>↑</kbd> <kbd>↓</kbd> to move · <kbd>Enter</kbd> to open · <kbd>Esc</kbd> to close
              </>
            )}
          </div>
        </div>
      )}
    </dialog>
  );
}

function optionId(i: number) {
  return `palette-option-${i}`;
}
