"use client";
// A menu or popover that closes on a click outside it or on Escape.
import { useEffect, type RefObject } from "react";

export function useDismiss(open: boolean, inside: RefObject<HTMLElement | null>, close: (how: "outside" | "escape") => void) {
  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (!inside.current?.contains(e.target as Node)) close("outside");
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") close("escape");
    };
    document.addEventListener("mousedown", onDown);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("mousedown", onDown);
      document.removeEventListener("keydown", onKey);
    };
  }, [open, inside, close]);
}
