// A line diff of two texts (the policy history's "compare"): Myers' O(ND)
// algorithm in its linear-space form (middle snake, divide and conquer).
// Bounded: texts over MAX_DIFF_LINES lines, or a comparison that would take
// more than MAX_DIFF_WORK steps, answer "too large" instead of freezing the tab.

export const MAX_DIFF_LINES = 20_000;
export const MAX_DIFF_WORK = 20_000_000;

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
  | { ok: true; lines: DiffLine[]; added: number; removed: number }
  | { ok: false; reason: "too-large"; message: string };

class TooMuchWork extends Error {}

const splitLines = (text: string) => (text === "" ? [] : text.replace(/\r\n/g, "\n").replace(/\n$/, "").split("\n"));

export function diffLines(oldText: string, newText: string, limits: { maxLines?: number; maxWork?: number } = {}): LineDiffResult {
  const maxLines = limits.maxLines ?? MAX_DIFF_LINES;
  const a = splitLines(oldText);
  const b = splitLines(newText);
  if (a.length > maxLines || b.length > maxLines) {
    return { ok: false, reason: "too-large", message: `These versions are too large to compare (${Math.max(a.length, b.length).toLocaleString("en-US")} lines; at most ${maxLines.toLocaleString("en-US")}).` };
  }
  // Lines as small integers: comparing numbers is cheaper than comparing strings.
  const ids = new Map<string, number>();
  const intern = (s: string) => {
    let id = ids.get(s);
    if (id === undefined) ids.set(s, (id = ids.size));
    return id;
  };
  const A = Int32Array.from(a, intern);
  const B = Int32Array.from(b, intern);
  const ops: DiffLineKind[] = [];
  try {
    new Differ(A, B, limits.maxWork ?? MAX_DIFF_WORK, ops).diff(0, A.length, 0, B.length);
  } catch (err) {
    if (err instanceof TooMuchWork) return { ok: false, reason: "too-large", message: "These versions differ too much to compare line by line." };
    throw err;
  }
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  let added = 0;
  let removed = 0;
  for (const kind of ops) {
    if (kind === "same") lines.push({ kind, text: a[i], oldNo: ++i, newNo: ++j });
    else if (kind === "removed") (removed++, lines.push({ kind, text: a[i], oldNo: ++i }));
    else (added++, lines.push({ kind, text: b[j], newNo: ++j }));
  }
  return { ok: true, lines, added, removed };
}

class Differ {
  private work = 0;
  constructor(
    private readonly A: Int32Array,
    private readonly B: Int32Array,
    private readonly maxWork: number,
    private readonly out: DiffLineKind[],
  ) {}

  private spend(n: number) {
    this.work += n;
    if (this.work > this.maxWork) throw new TooMuchWork();
  }

  private emit(kind: DiffLineKind, n: number) {
    for (let i = 0; i < n; i++) this.out.push(kind);
  }

  /** Appends the edit script turning A[aLo, aHi) into B[bLo, bHi). */
  diff(aLo: number, aHi: number, bLo: number, bHi: number): void {
    const { A, B } = this;
    let prefix = 0;
    while (aLo + prefix < aHi && bLo + prefix < bHi && A[aLo + prefix] === B[bLo + prefix]) prefix++;
    let suffix = 0;
    while (aHi - suffix > aLo + prefix && bHi - suffix > bLo + prefix && A[aHi - 1 - suffix] === B[bHi - 1 - suffix]) suffix++;
    this.spend(prefix + suffix + 1);
    this.emit("same", prefix);
    aLo += prefix;
    bLo += prefix;
    aHi -= suffix;
    bHi -= suffix;
    if (aLo === aHi) this.emit("added", bHi - bLo);
    else if (bLo === bHi) this.emit("removed", aHi - aLo);
    else {
      const [x0, y0, x1, y1] = this.middleSnake(aLo, aHi, bLo, bHi);
      const smaller = (x0 - aLo) + (y0 - bLo) < (aHi - aLo) + (bHi - bLo) && (aHi - x1) + (bHi - y1) < (aHi - aLo) + (bHi - bLo);
      if (!smaller) {
        // Cannot happen for a correct middle snake; a plain replacement is still a true diff.
        this.emit("removed", aHi - aLo);
        this.emit("added", bHi - bLo);
      } else {
        this.diff(aLo, x0, bLo, y0);
        this.emit("same", x1 - x0);
        this.diff(x1, aHi, y1, bHi);
      }
    }
    this.emit("same", suffix);
  }

  /** The middle snake of an optimal path, as absolute [x0, y0, x1, y1]. */
  private middleSnake(aLo: number, aHi: number, bLo: number, bHi: number): [number, number, number, number] {
    const { A, B } = this;
    const N = aHi - aLo;
    const M = bHi - bLo;
    const delta = N - M;
    const odd = (delta & 1) !== 0;
    const max = Math.ceil((N + M) / 2);
    const off = max + 1;
    const vf = new Int32Array(2 * max + 3);
    const vb = new Int32Array(2 * max + 3);
    this.spend(vf.length);
    for (let d = 0; d <= max; d++) {
      for (let k = -d; k <= d; k += 2) {
        let x = k === -d || (k !== d && vf[off + k - 1] < vf[off + k + 1]) ? vf[off + k + 1] : vf[off + k - 1] + 1;
        let y = x - k;
        const sx = x;
        const sy = y;
        while (x < N && y < M && A[aLo + x] === B[bLo + y]) (x++, y++);
        this.spend(x - sx + 1);
        vf[off + k] = x;
        const kb = delta - k;
        if (odd && kb >= -(d - 1) && kb <= d - 1 && x + vb[off + kb] >= N) return [aLo + sx, bLo + sy, aLo + x, bLo + y];
      }
      for (let k = -d; k <= d; k += 2) {
        let x = k === -d || (k !== d && vb[off + k - 1] < vb[off + k + 1]) ? vb[off + k + 1] : vb[off + k - 1] + 1;
        let y = x - k;
        const sx = x;
        const sy = y;
        while (x < N && y < M && A[aHi - 1 - x] === B[bHi - 1 - y]) (x++, y++);
        this.spend(x - sx + 1);
        vb[off + k] = x;
        const kf = delta - k;
        if (!odd && kf >= -d && kf <= d && x + vf[off + kf] >= N) return [aHi - x, bHi - y, aHi - sx, bHi - sy];
      }
    }
    // Unreachable: the paths meet by d = ceil((N + M) / 2).
    return [aLo, bLo, aLo, bLo];
  }
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
