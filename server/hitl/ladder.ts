// The TTL ladder (docs/human-requests-and-policy.md#deadlines-the-ttl-ladder):
// level 1 approvers have 24 h, then the request escalates to level 2 (48 h),
// then on-call admins are told, and at the 7-day hard cap it expires. Veto
// requests have no ladder: their expiry is the moment they go ahead.
import type { TtlLadder } from "@/server/config";

// The ladder's parser lives with the other configuration (it is checked at start).
export { DEFAULT_LADDER, ladderFromEnv, parseDuration, type TtlLadder } from "@/server/config";

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
