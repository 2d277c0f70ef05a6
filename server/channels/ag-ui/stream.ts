// A run as a stream of AG-UI server-sent events (docs/ag-ui.md#streams): the
// log replayed from a cursor, then tailed as the kernel's event bus announces
// new rows, the way the run page's socket does. A comment every
// HEARTBEAT_MS keeps proxies from closing a quiet stream, and the same tick
// reads the log once for what another process wrote (the CLI answering a
// request) and asks again whether the watcher may still see the run (a token
// revoked, a person moved to another team). Destroying the stream (the
// client went away) stops everything.
import { Readable } from "node:stream";
import { EventEncoder } from "@ag-ui/encoder";
import type { BaseEvent } from "@ag-ui/core";
import type { Kernel, RunEventRecord } from "@/server/kernel";
import { AgUiMapper, type MapperOptions } from "./mapper";

export const HEARTBEAT_MS = 15_000;
const PAGE = 500;

export interface AgUiStreamOptions extends MapperOptions {
  /** Replay the log after this sequence number (0: from the start). */
  after: number;
  /** POST: end with the first RUN_FINISHED or RUN_ERROR. GET: go on until the Rein run ends. */
  once: boolean;
  heartbeatMs?: number;
  /** Asked at every heartbeat: false ends the stream (docs/ag-ui.md#security). */
  stillAllowed?: () => Promise<boolean>;
}

export function agUiStream(kernel: Pick<Kernel, "bus" | "store">, o: AgUiStreamOptions): Readable {
  const encoder = new EventEncoder();
  const mapper = new AgUiMapper(o);
  let cursor = o.after;
  let live = false;
  let closed = false;
  const buffered: RunEventRecord[] = [];
  const stops: Array<() => void> = [];
  const stop = () => {
    closed = true;
    while (stops.length) stops.pop()!();
  };
  const out = new Readable({
    read() {},
    destroy(err, callback) {
      stop();
      callback(err);
    },
  });

  const emit = (events: BaseEvent[], seq?: number) => {
    events.forEach((e, i) => {
      // The last AG-UI event of a stored event carries its seq: a client reconnecting sends it back as Last-Event-ID.
      const id = seq !== undefined && i === events.length - 1 ? `id: ${seq}\n` : "";
      out.push(id + encoder.encodeSSE(e));
    });
  };
  const end = () => {
    if (closed) return;
    stop();
    out.push(null);
  };
  const afterBatch = () => {
    emit(mapper.settle());
    if (mapper.ended || (o.once && mapper.finished)) end();
  };
  const take = (events: RunEventRecord[]) => {
    for (const e of events) {
      if (closed || e.seq <= cursor) continue;
      cursor = e.seq;
      emit(mapper.stored(e), e.seq);
      if (mapper.ended || (o.once && mapper.finished)) return end();
    }
  };
  const catchUp = async () => {
    for (;;) {
      const page = await kernel.store.listEvents(o.runId, cursor, PAGE);
      take(page);
      if (closed || page.length < PAGE) return;
    }
  };

  /** What happened before the cursor, remembered but not sent. */
  const recall = async () => {
    for (let seen = 0; seen < o.after && !closed;) {
      const page = await kernel.store.listEvents(o.runId, seen, Math.min(PAGE, o.after - seen));
      for (const e of page) if (e.seq <= o.after) mapper.recall(e);
      if (page.length === 0) return;
      seen = page[page.length - 1].seq;
    }
  };

  // Listen first, then read the log: nothing written in between is lost.
  stops.push(
    kernel.bus.onRun(o.runId, (events) => {
      if (!live) return void buffered.push(...events);
      take(events);
      if (!closed) afterBatch();
    }),
  );
  stops.push(kernel.bus.onTransient(o.runId, (m) => live && !closed && emit(mapper.transient(m))));
  const beat = setInterval(() => {
    if (!live || closed) return;
    out.push(": keep-alive\n\n");
    (o.stillAllowed?.() ?? Promise.resolve(true))
      .then(async (allowed) => {
        if (!allowed) return end();
        await catchUp();
        if (!closed) afterBatch();
      })
      .catch((err) => out.destroy(err as Error));
  }, o.heartbeatMs ?? HEARTBEAT_MS);
  stops.push(() => clearInterval(beat));

  recall()
    .then(() => {
      if (closed) return;
      emit(mapper.start());
      return catchUp();
    })
    .then(() => {
      if (closed) return;
      live = true;
      take(buffered.sort((a, b) => a.seq - b.seq));
      if (!closed) afterBatch();
    })
    .catch((err) => out.destroy(err as Error));
  return out;
}
