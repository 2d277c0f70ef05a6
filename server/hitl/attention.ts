// People's attention as a figure (docs/performance.md#peoples-attention): for a set of runs,
// how often they asked a person per 100 tool calls, how much of their time they spent
// waiting for one, and how long a decision took on each channel. Read from the database
// only: the runs' tool.call events, their human requests (createdAt -> decidedAt, grouped
// by the channel that answered) and the runs' own start and end.
import type { Db } from "@/server/db";

export interface ChannelFigure {
  /** The channel that answered (inbox, slack, link, api, ...). */
  channel: string;
  /** Requests a person decided on it. */
  decided: number;
  /** Median createdAt -> decidedAt, ms. */
  medianMs: number;
}

export interface AttentionFigures {
  /** Runs that ended (the others are left out of every figure). */
  runs: number;
  toolCalls: number;
  /** Human requests of those runs, whatever asked and however they closed. */
  requests: number;
  /** requests per 100 tool calls (0 without tool calls). */
  promptsPer100Calls: number;
  /** Sum of the runs' startedAt -> endedAt, ms. */
  runMs: number;
  /** Sum of each request's open time (createdAt -> decidedAt, or to when it closed without a decision), ms. */
  waitingMs: number;
  /** waitingMs / runMs (0 without run time). */
  waitingShare: number;
  /** Requests a person decided, by channel, the busiest first. */
  channels: ChannelFigure[];
}

/** Ids per query: well under SQLite's limit of bound variables. */
const CHUNK = 500;

export function median(values: number[]): number {
  if (!values.length) return 0;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** The attention figures of these runs; runs that have not ended count for nothing. */
export async function attentionFigures(db: Db, runIds: readonly string[]): Promise<AttentionFigures> {
  const ended: string[] = [];
  let runMs = 0;
  for (let i = 0; i < runIds.length; i += CHUNK) {
    const runs = await db.run.findMany({
      where: { id: { in: runIds.slice(i, i + CHUNK) }, endedAt: { not: null } },
      select: { id: true, createdAt: true, startedAt: true, endedAt: true },
    });
    for (const r of runs) {
      ended.push(r.id);
      runMs += r.endedAt!.getTime() - (r.startedAt ?? r.createdAt).getTime();
    }
  }
  let toolCalls = 0;
  let requests = 0;
  let waitingMs = 0;
  const byChannel = new Map<string, number[]>();
  for (let i = 0; i < ended.length; i += CHUNK) {
    const ids = ended.slice(i, i + CHUNK);
    toolCalls += await db.runEvent.count({ where: { runId: { in: ids }, type: "tool.call" } });
    const rows = await db.humanRequest.findMany({
      where: { runId: { in: ids } },
      select: { createdAt: true, updatedAt: true, decidedAt: true, decidedById: true, channel: true },
    });
    for (const r of rows) {
      requests++;
      // A request still open when its run ended was closed with it (canceled): updatedAt is then.
      const closedAt = r.decidedAt ?? r.updatedAt;
      waitingMs += Math.max(0, closedAt.getTime() - r.createdAt.getTime());
      if (!r.decidedAt || !r.decidedById) continue;
      const channel = r.channel ?? "unknown";
      byChannel.set(channel, [...(byChannel.get(channel) ?? []), r.decidedAt.getTime() - r.createdAt.getTime()]);
    }
  }
  return {
    runs: ended.length,
    toolCalls,
    requests,
    promptsPer100Calls: toolCalls ? (100 * requests) / toolCalls : 0,
    runMs,
    waitingMs,
    waitingShare: runMs ? waitingMs / runMs : 0,
    channels: [...byChannel]
      .map(([channel, ms]) => ({ channel, decided: ms.length, medianMs: median(ms) }))
      .sort((a, b) => b.decided - a.decided || a.channel.localeCompare(b.channel)),
  };
}
