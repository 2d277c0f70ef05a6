// An error and the errors behind it (cause, Prisma's driver adapter error), each looked at once:
// what the classifiers of database and disk errors walk.

/** The fields the classifiers read from an error or any error behind it. */
export interface ErrorFacts {
  code?: unknown;
  originalCode?: unknown;
  message?: unknown;
}

/** Whether `test` holds for the error or any error behind it (cycles and non-objects skipped). */
export function anyCause(err: unknown, test: (e: ErrorFacts & object) => boolean): boolean {
  const seen = new Set<unknown>();
  const queue: unknown[] = [err];
  while (queue.length) {
    const e = queue.shift();
    if (!e || typeof e !== "object" || seen.has(e)) continue;
    seen.add(e);
    if (test(e)) return true;
    const o = e as { cause?: unknown; meta?: { driverAdapterError?: unknown } };
    queue.push(o.cause, o.meta?.driverAdapterError);
  }
  return false;
}

/** The error's codes: its own and the driver's original one. */
export const codesOf = (e: ErrorFacts): string[] => [e.code, e.originalCode].filter((c): c is string => typeof c === "string");
