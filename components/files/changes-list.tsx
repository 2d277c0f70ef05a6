"use client";
// Every file changed since the run started, with its status; opens the diff.
import { useRef, type KeyboardEvent } from "react";
import type { FileChangeView } from "@/lib/trpc";
import { CHANGE_LABELS, ChangeStatusLetter } from "./change-status";

function splitPath(path: string): [string, string] {
  const i = path.lastIndexOf("/");
  return i === -1 ? ["", path] : [path.slice(0, i + 1), path.slice(i + 1)];
}

export function ChangesList({ files, selected, onOpen }: { files: FileChangeView[]; selected: string | null; onOpen(path: string): void }) {
  const list = useRef<HTMLUListElement>(null);

  // Up and down move between the files; Tab leaves the list.
  const onKeyDown = (e: KeyboardEvent<HTMLUListElement>) => {
    if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
    const buttons = [...(list.current?.querySelectorAll<HTMLButtonElement>("button.change-item") ?? [])];
    const i = buttons.indexOf(document.activeElement as HTMLButtonElement);
    const next = buttons[e.key === "ArrowDown" ? Math.min(i + 1, buttons.length - 1) : Math.max(i - 1, 0)];
    if (next) {
      e.preventDefault();
      next.focus();
    }
  };

  return (
    <ul
      className="changes-list"
      ref={list}
      onKeyDown={onKeyDown}
      aria-label="Files changed since the run started"
      data-testid="changes-list"
    >
      {files.map((f) => {
        const [dir, name] = splitPath(f.path);
        return (
          <li key={f.path}>
            <button
              type="button"
              className={`change-item${f.path === selected ? " selected" : ""}`}
              aria-current={f.path === selected ? "true" : undefined}
              title={`${CHANGE_LABELS[f.status]}: ${f.oldPath ? `${f.oldPath} → ` : ""}${f.path}`}
              onClick={() => onOpen(f.path)}
              data-testid="change-item"
              data-path={f.path}
              data-status={f.status}
            >
              <span className={`change-name${f.status === "D" ? " deleted" : ""}`}>{name}</span>
              <span className="change-dir">{f.oldPath ? `${f.oldPath} → ${dir}` : dir}</span>
              <ChangeStatusLetter status={f.status} />
            </button>
          </li>
        );
      })}
    </ul>
  );
}
