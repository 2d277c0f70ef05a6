"use client";
// j/k move a selection over a list's rows, Enter opens the selected one. A
// list takes part by marking its rows `data-list-row`; Enter follows the row's
// `data-list-open` element, else its first link.
import { useEffect, type RefObject } from "react";
import { isTypingTarget } from "./keyboard";

export const CURRENT_ROW = "data-list-current";

/** Where a j (+1) or k (-1) goes from row `current` (-1: none yet) among `count`; stays at the ends. */
export function nextRow(current: number, count: number, step: 1 | -1): number {
  if (count === 0) return -1;
  if (current < 0 || current >= count) return step === 1 ? 0 : count - 1;
  return Math.min(Math.max(current + step, 0), count - 1);
}

/** Mounted once for the page area; `container` narrows it to one list. */
export function useListKeys(container?: RefObject<HTMLElement | null>) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || isTypingTarget(e.target) || document.querySelector("dialog[open]"))
        return;
      const onRow = e.target instanceof HTMLElement && e.target.hasAttribute("data-list-row");
      // Arrows scroll the page unless a row already has the focus.
      const step = e.key === "j" || (onRow && e.key === "ArrowDown") ? 1 : e.key === "k" || (onRow && e.key === "ArrowUp") ? -1 : 0;
      if (!step && !(onRow && e.key === "Enter")) return;
      const root = container?.current ?? document.querySelector("main");
      if (!root) return;
      const rows = [...root.querySelectorAll<HTMLElement>("[data-list-row]")].filter((r) => r.getClientRects().length > 0);
      if (rows.length === 0) return;
      e.preventDefault();
      if (!step) {
        openRow(e.target as HTMLElement);
        return;
      }
      const focused = rows.indexOf(e.target as HTMLElement);
      const current = focused !== -1 ? focused : rows.findIndex((r) => r.hasAttribute(CURRENT_ROW));
      select(rows, nextRow(current, rows.length, step));
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [container]);
}

function select(rows: HTMLElement[], index: number) {
  rows.forEach((r, i) => (i === index ? r.setAttribute(CURRENT_ROW, "") : r.removeAttribute(CURRENT_ROW)));
  const row = rows[index];
  if (!row.hasAttribute("tabindex")) row.tabIndex = -1;
  row.focus({ preventScroll: true });
  row.scrollIntoView({ block: "nearest" });
}

function openRow(row: HTMLElement) {
  const target = row.querySelector<HTMLElement>("[data-list-open]") ?? row.querySelector<HTMLElement>("a[href]");
  (target ?? row).click();
}
