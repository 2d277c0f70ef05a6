"use client";
// The workspace's file tree: folders collapse, the keyboard moves through it
// as in an editor's explorer (WAI-ARIA tree: arrows, Home/End, Enter).
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { formatFileSize } from "@/lib/format";
import type { FileTreeNode } from "@/lib/trpc";
import { ChangeStatusLetter, type ChangeStatus } from "./change-status";
import { ChevronIcon, FileIcon, FolderIcon } from "./file-icons";

interface Row {
  node: FileTreeNode;
  depth: number;
  parent: string | null;
  setSize: number;
  position: number;
}

/** Small workspaces open with every folder expanded; big ones collapsed. */
const EXPAND_ALL_UP_TO = 80;

function allFolders(nodes: FileTreeNode[], out = new Set<string>()): Set<string> {
  for (const n of nodes) {
    if (n.type === "dir") {
      out.add(n.path);
      allFolders(n.children, out);
    }
  }
  return out;
}

function visibleRows(nodes: FileTreeNode[], expanded: Set<string>, depth = 0, parent: string | null = null, out: Row[] = []): Row[] {
  nodes.forEach((node, i) => {
    out.push({ node, depth, parent, setSize: nodes.length, position: i + 1 });
    if (node.type === "dir" && expanded.has(node.path)) visibleRows(node.children, expanded, depth + 1, node.path, out);
  });
  return out;
}

function ancestors(path: string): string[] {
  const parts = path.split("/");
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join("/"));
}

export function FileTree({
  entries,
  count,
  selected,
  statuses,
  onOpen,
}: {
  entries: FileTreeNode[];
  count: number;
  selected: string | null;
  statuses: Map<string, ChangeStatus>;
  onOpen(path: string): void;
}) {
  const [expanded, setExpanded] = useState<Set<string>>(() => (count <= EXPAND_ALL_UP_TO ? allFolders(entries) : new Set()));
  const [focused, setFocused] = useState<string | null>(null);
  const items = useRef(new Map<string, HTMLLIElement>());

  // The open file's folders are expanded, so it can be seen.
  useEffect(() => {
    if (!selected) return;
    setExpanded((prev) => {
      const missing = ancestors(selected).filter((a) => !prev.has(a));
      return missing.length ? new Set([...prev, ...missing]) : prev;
    });
  }, [selected]);

  const rows = useMemo(() => visibleRows(entries, expanded), [entries, expanded]);
  const changedFolders = useMemo(() => new Set([...statuses.keys()].flatMap(ancestors)), [statuses]);
  const has = (path: string | null) => !!path && rows.some((r) => r.node.path === path);
  const tabStop = has(focused) ? focused : has(selected) ? selected : rows[0]?.node.path;

  const focus = (path: string) => {
    setFocused(path);
    items.current.get(path)?.focus();
  };
  const toggle = (path: string, open?: boolean) =>
    setExpanded((prev) => {
      const next = new Set(prev);
      if (open ?? !prev.has(path)) next.add(path);
      else next.delete(path);
      return next;
    });

  const onKeyDown = (e: KeyboardEvent<HTMLLIElement>, row: Row, i: number) => {
    const { node } = row;
    const isOpen = node.type === "dir" && expanded.has(node.path);
    let handled = true;
    switch (e.key) {
      case "ArrowDown":
        if (rows[i + 1]) focus(rows[i + 1].node.path);
        break;
      case "ArrowUp":
        if (rows[i - 1]) focus(rows[i - 1].node.path);
        break;
      case "Home":
        focus(rows[0].node.path);
        break;
      case "End":
        focus(rows[rows.length - 1].node.path);
        break;
      case "ArrowRight":
        if (node.type === "dir" && !isOpen) toggle(node.path, true);
        else if (node.type === "dir" && node.children.length) focus(node.children[0].path);
        break;
      case "ArrowLeft":
        if (isOpen) toggle(node.path, false);
        else if (row.parent) focus(row.parent);
        break;
      case "Enter":
      case " ":
        if (node.type === "dir") toggle(node.path);
        else onOpen(node.path);
        break;
      default:
        handled = false;
    }
    if (handled) {
      e.preventDefault();
      e.stopPropagation();
    }
  };

  return (
    <ul className="file-tree" role="tree" aria-label="Workspace files" data-testid="file-tree">
      {rows.map((row, i) => {
        const { node } = row;
        const isDir = node.type === "dir";
        const isOpen = isDir && expanded.has(node.path);
        const status = statuses.get(node.path);
        return (
          <li
            key={node.path}
            ref={(el) => {
              if (el) items.current.set(node.path, el);
              else items.current.delete(node.path);
            }}
            role="treeitem"
            aria-level={row.depth + 1}
            aria-setsize={row.setSize}
            aria-posinset={row.position}
            aria-expanded={isDir ? isOpen : undefined}
            aria-selected={!isDir && node.path === selected}
            tabIndex={node.path === tabStop ? 0 : -1}
            className={`tree-item${!isDir && node.path === selected ? " selected" : ""}`}
            style={{ paddingLeft: 8 + row.depth * 14 }}
            title={
              isDir
                ? node.path
                : `${node.path} · ${formatFileSize(node.size)}${node.type === "file" && node.symlink ? " · symbolic link" : ""}`
            }
            data-testid="tree-item"
            data-path={node.path}
            data-type={node.type}
            onFocus={() => setFocused(node.path)}
            onKeyDown={(e) => onKeyDown(e, row, i)}
            onClick={() => (isDir ? toggle(node.path) : onOpen(node.path))}
          >
            <span className="tree-chevron" aria-hidden="true">
              {isDir && <ChevronIcon open={isOpen} />}
            </span>
            <span className={`tree-icon${isDir ? " folder" : ""}`} aria-hidden="true">
              {isDir ? <FolderIcon open={isOpen} /> : <FileIcon />}
            </span>
            <span className={`tree-name${node.type === "file" && node.symlink ? " symlink" : ""}`}>{node.name}</span>
            {status ? (
              <ChangeStatusLetter status={status} />
            ) : (
              isDir && changedFolders.has(node.path) && <span className="tree-changed-dot" title="Contains changes" aria-hidden="true" />
            )}
          </li>
        );
      })}
    </ul>
  );
}
