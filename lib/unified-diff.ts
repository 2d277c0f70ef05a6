// A unified git diff (git diff-tree -p) split per file, each file's hunks laid
// out as two texts Monaco's diff editor can show side by side: the lines of
// the old side and of the new side, a hunk header line in both between hunks,
// and the real line numbers of every line kept beside them.

export type DiffFileStatus = "A" | "M" | "D";

export interface DiffFile {
  path: string;
  status: DiffFileStatus;
  binary: boolean;
  additions: number;
  deletions: number;
  /** The old side: context and removed lines, hunk by hunk. */
  original: string;
  modified: string;
  /** The line number in the old file of each line of `original`; null for a hunk header. */
  originalLines: (number | null)[];
  modifiedLines: (number | null)[];
  /** The file's part of the diff as git wrote it. */
  text: string;
}

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@(.*)$/;

/** git quotes a path with unusual characters ("a/t\303\251st"); keep it readable. */
function unquote(p: string): string {
  if (!p.startsWith('"')) return p;
  try {
    const bytes = p
      .slice(1, -1)
      .replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)))
      .replace(/\\(.)/g, (_, c: string) => ({ n: "\n", t: "\t" })[c] ?? c);
    return new TextDecoder().decode(Uint8Array.from(bytes, (c) => c.charCodeAt(0)));
  } catch {
    return p.slice(1, -1);
  }
}

const stripSide = (p: string) => unquote(p.trim()).replace(/^[ab]\//, "");

/** The path named by "diff --git a/x b/x" (the same on both sides without renames). */
function pathOfHeader(line: string): string {
  const rest = line.slice("diff --git ".length);
  const half = (rest.length - 1) / 2;
  if (Number.isInteger(half) && rest.slice(0, half).replace(/^"?a\//, "") === rest.slice(half + 1).replace(/^"?b\//, ""))
    return stripSide(rest.slice(half + 1));
  const b = rest.lastIndexOf(" b/");
  return stripSide(b >= 0 ? rest.slice(b + 1) : rest);
}

export function parseUnifiedDiff(text: string): DiffFile[] {
  const files: DiffFile[] = [];
  let file: (DiffFile & { orig: string[]; mod: string[]; lines: string[] }) | null = null;
  let oldNo = 0;
  let newNo = 0;
  let inHunk = false;
  const finish = () => {
    if (!file) return;
    const { orig, mod, lines, ...rest } = file;
    files.push({ ...rest, original: orig.join("\n"), modified: mod.join("\n"), text: lines.join("\n") });
  };
  for (const line of text.split("\n")) {
    if (line.startsWith("diff --git ")) {
      finish();
      file = {
        path: pathOfHeader(line),
        status: "M",
        binary: false,
        additions: 0,
        deletions: 0,
        original: "",
        modified: "",
        originalLines: [],
        modifiedLines: [],
        text: "",
        orig: [],
        mod: [],
        lines: [line],
      };
      inHunk = false;
      continue;
    }
    if (!file) continue;
    file.lines.push(line);
    const hunk = HUNK.exec(line);
    if (hunk) {
      oldNo = Number(hunk[1]);
      newNo = Number(hunk[2]);
      inHunk = true;
      file.orig.push(line);
      file.mod.push(line);
      file.originalLines.push(null);
      file.modifiedLines.push(null);
      continue;
    }
    if (!inHunk) {
      if (line.startsWith("new file mode")) file.status = "A";
      else if (line.startsWith("deleted file mode")) file.status = "D";
      else if (line.startsWith("Binary files ") || line === "GIT binary patch") file.binary = true;
      else if (line.startsWith("+++ ") && line !== "+++ /dev/null") file.path = stripSide(line.slice(4));
      else if (line.startsWith("--- ") && line !== "--- /dev/null" && file.status === "D") file.path = stripSide(line.slice(4));
      continue;
    }
    if (line.startsWith("+")) {
      file.additions++;
      file.mod.push(line.slice(1));
      file.modifiedLines.push(newNo++);
    } else if (line.startsWith("-")) {
      file.deletions++;
      file.orig.push(line.slice(1));
      file.originalLines.push(oldNo++);
    } else if (line.startsWith(" ")) {
      file.orig.push(line.slice(1));
      file.mod.push(line.slice(1));
      file.originalLines.push(oldNo++);
      file.modifiedLines.push(newNo++);
    }
    // "\ No newline at end of file" and the diff's last newline: not a line of either side.
  }
  finish();
  return files;
}
