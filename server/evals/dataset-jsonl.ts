// A dataset's items as JSONL, one item a line: { key?, goal, agent?,
// scenario?, expected? }. An import checks every line first and reports each
// problem by its line number, all at once; a file with any bad line imports
// nothing. Limits keep a hostile file cheap to refuse.
import { MAX_JSONL_BYTES } from "@/lib/limits";
import type { Db } from "@/server/db";
import type { Actor } from "@/server/identity";
import { DatasetError, invalidInput } from "./dataset-errors";
import type { DatasetProblem, ItemFields } from "./dataset-input";
import { audit, editableDataset, visibleDataset, type DatasetActor } from "./datasets";
import { checkItem, fieldsOf, itemData, liveItems, nextKey, sameFields } from "./dataset-items";

export { MAX_JSONL_BYTES };
export const MAX_JSONL_LINES = 10_000;
export const MAX_JSONL_LINE_BYTES = 256 * 1024;
/** Objects and arrays nested deeper than this on one line are refused before parsing. */
export const MAX_JSONL_DEPTH = 32;
/** At most this many problems are listed; a file that bad needs fixing at its source. */
const MAX_PROBLEMS = 200;

/** The deepest nesting of brackets outside strings, stopping early past the limit. */
function nestingDepth(line: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (c === 125 || c === 93) depth--;
  }
  return deepest;
}

export interface ParsedLine {
  line: number;
  key?: string;
  fields: ItemFields;
}

/** Every line checked; throws with every problem ("line 3: goal is required") when any is bad. */
export function parseJsonl(text: string): ParsedLine[] {
  if (Buffer.byteLength(text, "utf8") > MAX_JSONL_BYTES)
    throw new DatasetError("PAYLOAD_TOO_LARGE", `The file is larger than ${MAX_JSONL_BYTES / 1024 / 1024} MB; split it in parts`);
  const lines = text.split(/\r?\n/);
  if (lines.length > MAX_JSONL_LINES + 1 || (lines.length === MAX_JSONL_LINES + 1 && lines[MAX_JSONL_LINES].trim() !== "")) {
    throw new DatasetError("PAYLOAD_TOO_LARGE", `The file has more than ${MAX_JSONL_LINES.toLocaleString("en")} lines; split it in parts`);
  }
  const problems: DatasetProblem[] = [];
  const parsed: ParsedLine[] = [];
  const keys = new Map<string, number>();
  const problem = (line: number, message: string) => problems.push({ field: `line ${line}`, message: `line ${line}: ${message}` });
  lines.forEach((raw, i) => {
    const line = i + 1;
    if (problems.length >= MAX_PROBLEMS || !raw.trim()) return;
    if (raw.length > MAX_JSONL_LINE_BYTES) return problem(line, `the line is longer than ${MAX_JSONL_LINE_BYTES / 1024} KiB`);
    if (nestingDepth(raw, MAX_JSONL_DEPTH) > MAX_JSONL_DEPTH)
      return problem(line, `the JSON is nested deeper than ${MAX_JSONL_DEPTH} levels`);
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      return problem(line, `not valid JSON (${(err as Error).message})`);
    }
    const checked = checkItem(value);
    if (!("fields" in checked)) return checked.problems.forEach((p) => problem(line, p.message));
    if (checked.key !== undefined) {
      const first = keys.get(checked.key);
      if (first !== undefined) return problem(line, `key ${checked.key} is on line ${first} too`);
      keys.set(checked.key, line);
    }
    parsed.push({ line, key: checked.key, fields: checked.fields });
  });
  if (problems.length) throw invalidInput("The file", problems);
  if (parsed.length === 0)
    throw invalidInput("The file", [{ field: "line 1", message: "the file has no items: write one JSON object a line" }]);
  return parsed;
}

export interface ImportResult {
  added: number;
  edited: number;
  unchanged: number;
}

/**
 * Imports a JSONL file: a line with a key the dataset has becomes that item's
 * next version (unchanged when equal), any other line a new item.
 */
export async function importJsonl(db: Db, who: DatasetActor, datasetId: string, text: string): Promise<ImportResult> {
  const dataset = await editableDataset(db, who.actor, datasetId);
  const lines = parseJsonl(text);
  const result: ImportResult = { added: 0, edited: 0, unchanged: 0 };
  await db.$transaction(
    async (tx) => {
      const rows = await tx.datasetItem.findMany({
        where: { datasetId },
        select: { key: true, version: true },
        orderBy: { version: "desc" },
      });
      const versions = new Map<string, number>();
      for (const r of rows) if (!versions.has(r.key)) versions.set(r.key, r.version);
      const live = new Map((await liveItems(tx, datasetId)).map((i) => [i.key, i]));
      const taken = new Set([...versions.keys(), ...lines.flatMap((l) => (l.key ? [l.key] : []))]);
      const data = [];
      for (const l of lines) {
        const key = l.key ?? nextKey(taken);
        taken.add(key);
        const current = live.get(key);
        if (current && sameFields(fieldsOf(current), l.fields)) {
          result.unchanged++;
          continue;
        }
        if (current) result.edited++;
        else result.added++;
        data.push(itemData(datasetId, key, (versions.get(key) ?? 0) + 1, l.fields, who.actor.userId));
      }
      if (data.length) await tx.datasetItem.createMany({ data });
      await audit(tx, who, "dataset.imported", dataset.name, { datasetId, lines: lines.length, ...result });
    },
    { timeout: 60_000 },
  );
  return result;
}

/** The dataset's items now, one JSON object a line, ready to import elsewhere. */
export async function exportJsonl(db: Db, actor: Actor, datasetId: string): Promise<{ filename: string; jsonl: string }> {
  const dataset = await visibleDataset(db, actor, datasetId);
  const items = await liveItems(db, datasetId);
  const lines = items.map((i) =>
    JSON.stringify({
      key: i.key,
      goal: i.goal,
      ...(i.agent ? { agent: i.agent } : {}),
      ...(i.scenario ? { scenario: i.scenario } : {}),
      expected: i.expected,
    }),
  );
  return { filename: `${dataset.name}.jsonl`, jsonl: lines.length ? `${lines.join("\n")}\n` : "" };
}
