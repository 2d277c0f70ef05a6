// A line diff of two texts (the policy history's "compare"), computed by the
// `diff` package; folding long unchanged stretches is Rein's own. Bounded:
// texts over MAX_DIFF_LINES lines, or more than MAX_DIFF_EDITS changed lines,
// answer "too large" instead of freezing the tab.
import { diffLines as jsDiffLines } from "diff";

export const MAX_DIFF_LINES = 20_000;
export const MAX_DIFF_EDITS = 2_000;

export type DiffLineKind = "same" | "added" | "removed";

export interface DiffLine {
  kind: DiffLineKind;
  text: string;
  /** 1-based line in the old text (same and removed lines). */
  oldNo?: number;
  /** 1-based line in the new text (same and added lines). */
  newNo?: number;
}

export type LineDiffResult =
  { ok: true; lines: DiffLine[]; added: number; removed: number } | { ok: false; reason: "too-large"; message: string };

const splitLines = (text: string) => (text === "" ? [] : text.replace(/\r\n/g, "\n").replace(/\n$/, "").split("\n"));

export function diffLines(oldText: string, newText: string, limits: { maxLines?: number; maxEdits?: number } = {}): LineDiffResult {
  const maxLines = limits.maxLines ?? MAX_DIFF_LINES;
  const a = splitLines(oldText);
  const b = splitLines(newText);
  if (a.length > maxLines || b.length > maxLines) {
    return {
      ok: false,
      reason: "too-large",
      message: `These versions are too large to compare (${Math.max(a.length, b.length).toLocaleString("en-US")} lines; at most ${maxLines.toLocaleString("en-US")}).`,
    };
  }
  // Every line ends in "\n", so a missing newline at the end is not a change.
  const text = (lines: string[]) => lines.map((l) => `${l}\n`).join("");
  const changes = jsDiffLines(text(a), text(b), { maxEditLength: limits.maxEdits ?? MAX_DIFF_EDITS });
  if (!changes) return { ok: false, reason: "too-large", message: "These versions differ too much to compare line by line." };
  const lines: DiffLine[] = [];
  let oldNo = 0;
  let newNo = 0;
  let added = 0;
  let removed = 0;
  for (const change of changes) {
    for (const line of splitLines(change.value)) {
      if (change.added) (added++, lines.push({ kind: "added", text: line, newNo: ++newNo }));
      else if (change.removed) (removed++, lines.push({ kind: "removed", text: line, oldNo: ++oldNo }));
      else lines.push({ kind: "same", text: line, oldNo: ++oldNo, newNo: ++newNo });
    }
  }
  return { ok: true, lines, added, removed };
}

export type DiffRow = DiffLine | { kind: "skipped"; count: number; oldNo: number; newNo: number };

/** Long runs of unchanged lines folded to `context` lines either side of each change. */
export function foldUnchanged(lines: DiffLine[], context = 3): DiffRow[] {
  const rows: DiffRow[] = [];
  let i = 0;
  while (i < lines.length) {
    if (lines[i].kind !== "same") {
      rows.push(lines[i++]);
      continue;
    }
    let end = i;
    while (end < lines.length && lines[end].kind === "same") end++;
    const keepHead = i === 0 ? 0 : context;
    const keepTail = end === lines.length ? 0 : context;
    if (end - i <= keepHead + keepTail + 1) rows.push(...lines.slice(i, end));
    else {
      rows.push(...lines.slice(i, i + keepHead));
      const first = lines[i + keepHead];
      rows.push({ kind: "skipped", count: end - i - keepHead - keepTail, oldNo: first.oldNo!, newNo: first.newNo! });
      rows.push(...lines.slice(end - keepTail, end));
    }
    i = end;
  }
  return rows;
}
