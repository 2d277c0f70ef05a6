// Fault injection for crash tests. REIN_FAILPOINTS="name:n[,name:n]" makes the
// n-th hit of `name` in this process kill the process at once (SIGKILL), to
// land a crash inside a window too narrow to hit from outside. Off when unset.
// A malformed value arms nothing here; the server refuses it at start (loadConfig).
import { parseFailpoints, type FailpointName } from "./parsers";

export type { FailpointName };

function armedFromEnv(): Map<string, number> {
  try {
    return parseFailpoints(process.env.REIN_FAILPOINTS);
  } catch {
    return new Map();
  }
}

const armed = armedFromEnv();
const hits = new Map<string, number>();

export function failpoint(name: FailpointName): void {
  const at = armed.get(name);
  if (at === undefined) return;
  const n = (hits.get(name) ?? 0) + 1;
  hits.set(name, n);
  if (n === at) process.kill(process.pid, "SIGKILL");
}
