// The TTL ladder (SPEC section 4): level 1 approvers have 24 h, then the
// request escalates to level 2 (48 h), then on-call admins are told, and at
// the 7-day hard cap it expires. Veto requests have no ladder: their expiry is
// the moment they go ahead.
export interface TtlLadder {
  level1Sec: number;
  level2Sec: number;
  hardCapSec: number;
}

export const DEFAULT_LADDER: TtlLadder = { level1Sec: 24 * 3600, level2Sec: 48 * 3600, hardCapSec: 7 * 24 * 3600 };

const UNIT_SEC: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** "90s", "30m", "24h", "7d" -> seconds. */
export function parseDuration(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([smhd])\s*$/.exec(text);
  if (!m) throw new Error(`"${text}" is not a duration (use e.g. 90s, 30m, 24h, 7d)`);
  return Math.round(Number(m[1]) * UNIT_SEC[m[2]]);
}

/** REIN_HITL_LADDER="24h,48h,7d" (level 1, level 2, hard cap). */
export function ladderFromEnv(value: string | undefined): TtlLadder {
  if (!value?.trim()) return DEFAULT_LADDER;
  const parts = value.split(",").map((p) => parseDuration(p));
  if (parts.length !== 3) throw new Error(`REIN_HITL_LADDER needs three durations (level 1, level 2, hard cap), got "${value}"`);
  const [level1Sec, level2Sec, hardCapSec] = parts;
  if (hardCapSec < level1Sec) throw new Error("REIN_HITL_LADDER: the hard cap must not be shorter than level 1");
  return { level1Sec, level2Sec, hardCapSec };
}

/** When a new request's level runs out, and when it expires for good. */
export function deadlines(kind: string, ladder: TtlLadder, now: Date, ttlSec?: number): { expiresAt: Date; hardExpiresAt: Date } {
  const at = (sec: number) => new Date(now.getTime() + sec * 1000);
  if (kind === "veto") {
    const expiresAt = at(ttlSec ?? ladder.level1Sec);
    return { expiresAt, hardExpiresAt: expiresAt };
  }
  const level1 = ttlSec ?? ladder.level1Sec;
  return { expiresAt: at(level1), hardExpiresAt: at(Math.max(ladder.hardCapSec, level1)) };
}
