// Redis connections for several machines: the run queue (BullMQ), control
// messages to the worker that executes a run, and announcements of new events.
// Redis must run with maxmemory-policy noeviction: an evicted lock key once
// wedged another product's workers for days.
import IORedis, { type RedisOptions } from "ioredis";

export type Redis = IORedis;

/**
 * A connection that never gives up: commands wait while Redis restarts
 * (BullMQ needs maxRetriesPerRequest null), TCP keep-alive finds half-open
 * connections, and reconnects back off to at most 2 s.
 */
export function connectRedis(url: string, opts: { name: string; log?: { error(msg: string, err?: unknown): void } }): Redis {
  const options: RedisOptions = {
    connectionName: `rein-${opts.name}`,
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    keepAlive: 10_000,
    connectTimeout: 5_000,
    retryStrategy: (times) => Math.min(100 * times, 2_000),
  };
  const redis = new IORedis(url, options);
  let reported = false;
  redis.on("error", (err) => {
    // One line per outage, not one per retry.
    if (!reported) opts.log?.error(`Redis (${opts.name}) is unreachable; retrying`, err);
    reported = true;
  });
  redis.on("ready", () => void (reported = false));
  return redis;
}

/** Redis keys and channels of one deployment; `prefix` keeps tests and deployments sharing a server apart. */
export function channelsFor(prefix: string) {
  return {
    queue: `${prefix}-runs`,
    control: `${prefix}:control`,
    events: `${prefix}:events`,
    transient: `${prefix}:transient`,
    requests: `${prefix}:requests`,
    /** Set by a worker that is stopping: runs no longer resume there. */
    leaving: (workerId: string) => `${prefix}:leaving:${workerId}`,
  };
}

/**
 * A message read from Redis, or null when it is not JSON. Its fields are
 * still unchecked: the caller checks the ones it uses.
 */
export function readMessage<T>(raw: string): Partial<T> | null {
  try {
    const value = JSON.parse(raw) as unknown;
    return value && typeof value === "object" ? (value as Partial<T>) : null;
  } catch {
    return null;
  }
}
