"use client";
// The keys every page shares: Ctrl+K (the palette), "?" (this page's
// shortcuts), and j/k/Enter over any list whose rows are marked `data-list-row`.
import { CommandPalette } from "@/components/palette/command-palette";
import { useListKeys } from "@/lib/use-list-keys";
import { ShortcutsHost } from "./shortcuts-dialog";

export function KeyboardLayer() {
  useListKeys();
  return (
    <>
      <ShortcutsHost />
      <CommandPalette />
    </>
  );
}
