// Parses what an MCP server sends without stalling Rein's event loop
// (docs/security.md#what-external-servers-send). Parsing costs by the value,
// and above all by the distinct member name, more than by the byte: 2 MiB of
// objects with distinct names takes half a second. A short message is parsed
// here at once. A longer one is first parsed in a worker thread, which counts
// its values and distinct names: past the limits it is refused unread; within
// them it is parsed here, which the limits keep to some tens of ms. (Handing
// the worker's object back would cost more: a structured clone rebuilds
// slower than JSON.parse.)
import { Worker } from "node:worker_threads";
import { MAX_DISTINCT_NAMES, MAX_JSON_VALUES } from "./limits";

/** Up to this many bytes a message is parsed on the event loop (at worst a few ms). */
export const INLINE_PARSE_BYTES = 64 * 1024;

export type Parsed = { ok: true; value: unknown } | { ok: false; tooComplex: boolean; message: string };

const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const { maxValues, maxNames } = workerData;
const decoder = new TextDecoder();
// Counts values and distinct member names, stopping at the first over a limit.
function tooComplex(root) {
  let values = 0;
  const names = new Set();
  const stack = [root];
  while (stack.length) {
    const v = stack.pop();
    if (++values > maxValues) return "values";
    if (v === null || typeof v !== "object") continue;
    if (Array.isArray(v)) { for (let i = 0; i < v.length; i++) stack.push(v[i]); continue; }
    for (const k in v) {
      if (names.size <= maxNames) names.add(k);
      if (names.size > maxNames) return "names";
      stack.push(v[k]);
    }
  }
  return null;
}
parentPort.on("message", ({ id, bytes }) => {
  let value;
  try {
    value = JSON.parse(decoder.decode(bytes));
  } catch (err) {
    parentPort.postMessage({ id, ok: false, tooComplex: false, message: String(err && err.message).slice(0, 300) });
    return;
  }
  const over = tooComplex(value);
  parentPort.postMessage(over ? { id, ok: false, tooComplex: true, message: over } : { id, ok: true });
});
`;

export type Checked = { ok: true } | { ok: false; tooComplex: boolean; message: string };
type Waiter = (checked: Checked) => void;

/** One worker for every server's messages, started when first needed; it never keeps the process alive. */
class ParseWorker {
  private worker: Worker | null = null;
  private next = 0;
  private readonly waiting = new Map<number, Waiter>();

  check(line: Buffer): Promise<Checked> {
    const worker = this.start();
    const id = this.next++;
    // A copy of its own, handed over: the line's memory may be shared with others.
    const bytes = new Uint8Array(line);
    return new Promise<Checked>((resolve) => {
      this.waiting.set(id, resolve);
      if (this.waiting.size === 1) worker.ref();
      worker.postMessage({ id, bytes }, [bytes.buffer]);
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER, { eval: true, workerData: { maxValues: MAX_JSON_VALUES, maxNames: MAX_DISTINCT_NAMES } });
    worker.unref();
    worker.on("message", (m: { id: number } & Checked) => {
      const resolve = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (this.waiting.size === 0) worker.unref();
      if (!resolve) return;
      const { id: _id, ...parsed } = m;
      resolve(parsed as Checked);
    });
    const lost = (why: string) => {
      if (this.worker === worker) this.worker = null;
      for (const resolve of this.waiting.values())
        resolve({ ok: false, tooComplex: false, message: `Rein could not read the message: ${why}` });
      this.waiting.clear();
    };
    worker.on("error", (err) => lost(err.message));
    worker.on("exit", (code) => lost(`its reader stopped (${code})`));
    this.worker = worker;
    return worker;
  }
}

const shared = new ParseWorker();

/** Parses a message in a worker and counts its values and distinct names (for a long one: a short one is cheap to parse here). */
export function checkParse(line: Buffer): Promise<Checked> {
  return shared.check(line);
}

/** Parses one message; a long one only once a worker found it within the limits. */
export async function parseMessage(line: Buffer): Promise<Parsed> {
  if (line.length > INLINE_PARSE_BYTES) {
    const checked = await checkParse(line);
    if (!checked.ok) return checked;
  }
  try {
    return { ok: true, value: JSON.parse(line.toString("utf8")) };
  } catch (err) {
    return { ok: false, tooComplex: false, message: (err as Error).message.slice(0, 300) };
  }
}
