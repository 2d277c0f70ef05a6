// mvdan-sh's syntax tree, read for shell.ts through its Walk. Reading a list
// field of a node (a command's words, its redirections, a here-document's
// parts) converts every element at once, about 0.1 ms each, before any limit
// could be checked; Walk hands over one node at a time, so the node budget is
// checked as the tree is read (docs/security.md#the-policy-reads-command-lines).
import sh from "mvdan-sh";

export type Node = { [key: string]: unknown };

/** A node with the children Walk visited, in its order (a Stmt: Cmd, then Redirs; a CallExpr: Assigns, then Args). */
export interface Rec {
  node: Node;
  type: string;
  kids: Rec[];
  /** Position in a depth-first, parent-first reading. */
  order: number;
}

const syntax = (
  sh as unknown as {
    syntax: {
      NewParser(): { Parse(src: string, name: string): Node };
      Walk(n: Node, f: (n: Node | null) => boolean): void;
      NodeType(n: Node): string;
    };
  }
).syntax;

export class TooManyNodes extends Error {}

/** Thrown when a read goes past a budget shared by a line and the lines it holds (see shell.ts' readWithin). */
export class OverBudget extends Error {}

/** What a read in place may still spend: characters parsed and nodes walked, across nested lines. */
export interface Budget {
  chars: number;
  nodes: number;
}

export function parseShell(command: string): Node {
  return syntax.NewParser().Parse(command, "command");
}

/** Calls `done` for each node once its children were read; throws TooManyNodes past `maxNodes`, OverBudget past the budget's nodes. */
export function walkShell(file: Node, maxNodes: number, done: (rec: Rec) => void, budget?: Budget | null): void {
  const stack: Rec[] = [];
  let order = 0;
  syntax.Walk(file, (node) => {
    if (!node) {
      done(stack.pop()!);
      return true;
    }
    if (++order > maxNodes) throw new TooManyNodes();
    if (budget && --budget.nodes < 0) throw new OverBudget();
    const rec: Rec = { node, type: syntax.NodeType(node), kids: [], order };
    stack[stack.length - 1]?.kids.push(rec);
    stack.push(rec);
    return true;
  });
}

/** A word's text once the shell has taken quotes and escapes off, or null when it depends on run time (a variable, a substitution). */
export function wordText(word: Rec): string | null {
  let out = "";
  for (const part of word.kids) {
    const text = partText(part);
    if (text === null) return null;
    out += text;
  }
  return out;
}

function partText(part: Rec): string | null {
  switch (part.type) {
    case "Lit":
      return String(part.node.Value).replace(/\\(.)/gs, "$1").replace(/\\$/, "");
    case "SglQuoted":
      return part.node.Dollar ? ansiC(String(part.node.Value)) : String(part.node.Value);
    case "DblQuoted": {
      let out = "";
      for (const p of part.kids) {
        const t = p.type === "Lit" ? String(p.node.Value).replace(/\\([$`"\\\n])/g, "$1") : partText(p);
        if (t === null) return null;
        out += t;
      }
      return out;
    }
    default:
      // ParamExp, CmdSubst, ArithmExp, ProcSubst, ExtGlob, BraceExp: known only when it runs.
      return null;
  }
}

/** $'…' as bash reads it: \xHH, \uHHHH, octal and the usual letters. */
function ansiC(value: string): string {
  return value.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|.)/g, (_, e: string) => {
    if (/^[xuU]/.test(e)) return String.fromCodePoint(parseInt(e.slice(1), 16));
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8));
    return (
      ({ n: "\n", t: "\t", r: "\r", a: "\u0007", b: "\b", e: "\u001b", E: "\u001b", f: "\f", v: "\v" } as Record<string, string>)[e] ?? e
    );
  });
}
