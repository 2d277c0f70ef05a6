// One list of the keyboard shortcuts on screen: the app's own, and those each
// page registers while it is mounted. The "?" dialog shows them.

export interface Shortcut {
  /** Keys pressed together or in turn, as shown: ["g", "i"], ["Ctrl", "K"]. */
  keys: readonly string[];
  what: string;
}

export interface ShortcutGroup {
  title: string;
  shortcuts: readonly Shortcut[];
}

export interface ShortcutRegistry {
  /** Adds a page's shortcuts; the returned function takes them away again. */
  register(title: string, shortcuts: readonly Shortcut[]): () => void;
  /** The registered groups in the order they came; groups with one title are merged, a key listed once. */
  groups(): ShortcutGroup[];
  subscribe(listener: () => void): () => void;
}

export function createShortcutRegistry(): ShortcutRegistry {
  let entries: { token: object; title: string; shortcuts: readonly Shortcut[] }[] = [];
  let snapshot: ShortcutGroup[] = [];
  const listeners = new Set<() => void>();

  function rebuild() {
    const byTitle = new Map<string, Shortcut[]>();
    for (const e of entries) {
      const list = byTitle.get(e.title) ?? [];
      for (const s of e.shortcuts) if (!list.some((x) => x.keys.join(" ") === s.keys.join(" "))) list.push(s);
      byTitle.set(e.title, list);
    }
    snapshot = [...byTitle].filter(([, list]) => list.length > 0).map(([title, shortcuts]) => ({ title, shortcuts }));
    for (const l of listeners) l();
  }

  return {
    register(title, shortcuts) {
      const token = {};
      entries = [...entries, { token, title, shortcuts }];
      rebuild();
      return () => {
        entries = entries.filter((e) => e.token !== token);
        rebuild();
      };
    },
    groups: () => snapshot,
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}

/** The shortcuts every page has. */
export const GLOBAL_SHORTCUTS: readonly Shortcut[] = [
  { keys: ["Ctrl", "K"], what: "Open the command palette: go to a page, run or agent, start a run (⌘ K on a Mac)" },
  { keys: ["?"], what: "Show the shortcuts of this page" },
  { keys: ["n"], what: "Start a new run (operators)" },
  { keys: ["g", "i"], what: "Go to the inbox" },
];

/** What j, k and Enter do on any list marked for them (see useListKeys). */
export const LIST_SHORTCUTS: readonly Shortcut[] = [
  { keys: ["j", "↓"], what: "Next row" },
  { keys: ["k", "↑"], what: "Previous row" },
  { keys: ["Enter"], what: "Open the selected row" },
];
